"""POSIX PTY sessions: ptyprocess forks and execs the child, this module owns everything after.

ptyprocess gives us a correct fork/exec (session leader, controlling tty, exec errors reported
to the parent, inherited fds closed). Reading, writing, reaping and killing are done here with
plain syscalls because a tab needs guarantees ptyprocess does not give:

- `read()` returns b"" once the child is gone even if a background grandchild still holds the
  PTY open (it would otherwise block forever), and returns at once when `kill()` is called.
- `kill()` may run while another thread is blocked in `read()`/`write()`: the fd is closed only
  when the last of them has left, so a recycled fd number is never read by mistake.
- Reaping happens only through `waitpid(WNOHANG)` under one lock, so any thread may ask.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import threading
import time

from .pty import SpawnError

# How long to wait, between polls, before checking whether a silent child has exited.
_IDLE_CHECK_S = 0.25
# Grace between SIGHUP and SIGKILL in kill().
_KILL_GRACE_S = 0.5
# Signals Python (or a host thread) may have ignored or blocked; a shell expects defaults.
_RESET_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGPIPE", "SIGXFSZ", "SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGCHLD", "SIGHUP")
    if hasattr(signal, name)
)


def _child_preexec() -> None:
    """In the forked child, before exec: default signal dispositions and an empty signal mask."""
    for sig in _RESET_SIGNALS:
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, [])


def spawn(executable: str, argv: list[str], *, cwd: str | None, env: dict[str, str], cols: int, rows: int) -> "PosixPty":
    import ptyprocess  # lazy: only hosts that actually open a tab pay for it

    args = [executable, *argv[1:]]
    try:
        proc = ptyprocess.PtyProcess.spawn(
            args, cwd=cwd, env=env, dimensions=(rows, cols), preexec_fn=_child_preexec
        )
    except FileNotFoundError as exc:
        raise SpawnError(f"command not found: {argv[0]} ({exc})") from None
    except PermissionError:
        raise SpawnError(f"permission denied: {argv[0]}") from None
    except OSError as exc:
        raise SpawnError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    return PosixPty(proc)


class PosixPty:
    """A child on a PTY master fd. See the module docstring for the threading contract."""

    def __init__(self, proc: object) -> None:
        # Keep ptyprocess's object alive: its fileobj owns the fd, and its __del__ would kill the
        # child and close the fd behind our back if it were collected.
        self._proc = proc
        self.pid: int = proc.pid  # type: ignore[attr-defined]
        self._fd: int = proc.fd  # type: ignore[attr-defined]
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)
        self._lock = threading.Lock()
        self._users = 0  # threads inside read()/write() on the fd
        self._closing = False  # kill() asked; no new fd users
        self._closed = False  # fds are gone
        self._exit_code: int | None = None
        self._killed = False

    # -- I/O -------------------------------------------------------------------------------

    def read(self, max_bytes: int = 65536) -> bytes:
        if not self._enter():
            return b""
        try:
            child_gone = False
            while True:
                readable = self._wait_readable(0.0 if child_gone else _IDLE_CHECK_S)
                if self._closing:
                    return b""
                if readable:
                    try:
                        data = os.read(self._fd, max_bytes)
                    except OSError as exc:
                        if exc.errno in (errno.EIO, errno.EBADF, errno.ENXIO):
                            return b""  # Linux: all slave ends closed
                        raise
                    return data  # b"" on BSD/macOS at EOF
                if child_gone:
                    return b""  # child exited and nothing is left to drain
                child_gone = not self.is_alive()
        finally:
            self._leave()

    def write(self, data: bytes) -> None:
        if not self._enter():
            raise OSError(errno.EBADF, "the terminal is closed")
        try:
            view = memoryview(data)
            while view:
                try:
                    written = os.write(self._fd, view)
                except InterruptedError:
                    continue
                view = view[written:]
        finally:
            self._leave()

    def resize(self, cols: int, rows: int) -> None:
        if not self._enter():
            return  # a closed tab has no size to change
        try:
            winsize = struct.pack("HHHH", max(1, rows), max(1, cols), 0, 0)
            fcntl.ioctl(self._fd, termios.TIOCSWINSZ, winsize)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOTTY, errno.ENXIO, errno.EIO):
                raise
        finally:
            self._leave()

    def tty_device(self) -> int | None:
        """The device number of this PTY's slave side (`st_rdev` of /dev/pts/N, what
        /proc/PID/stat calls tty_nr), by which the host recognises a caller inside this tab.
        Linux only (TIOCGPTN); None elsewhere or once the PTY is closed."""
        if not sys.platform.startswith("linux") or not self._enter():
            return None
        try:
            tiocgptn = getattr(termios, "TIOCGPTN", 0x80045430)  # _IOR('T', 0x30, unsigned int)
            number = struct.unpack("I", fcntl.ioctl(self._fd, tiocgptn, b"\0" * 4))[0]
            return os.stat(f"/dev/pts/{number}").st_rdev
        except OSError:
            return None
        finally:
            self._leave()

    def _enter(self) -> bool:
        with self._lock:
            if self._closing:
                return False
            self._users += 1
            return True

    def _leave(self) -> None:
        with self._lock:
            self._users -= 1
            close_now = self._closing and self._users == 0 and not self._closed
            if close_now:
                self._closed = True
        if close_now:
            self._close_fds()

    def _wait_readable(self, timeout: float) -> bool:
        """True if the PTY has data (or hung up); False on timeout or a kill() wake-up."""
        fds = [self._fd, self._wake_r]
        if sys.platform != "darwin" and hasattr(select, "poll"):
            poller = select.poll()
            for fd in fds:
                poller.register(fd, select.POLLIN | select.POLLPRI)
            events = poller.poll(timeout * 1000.0)
            ready = {fd for fd, _ in events}
        else:  # macOS poll() is unreliable on tty devices; select() is not
            ready_list, _, _ = select.select(fds, [], [], timeout)
            ready = set(ready_list)
        if self._wake_r in ready:
            return False
        return self._fd in ready

    # -- process state ---------------------------------------------------------------------

    def _reap(self) -> int | None:
        """Collect the exit status if the child has exited. Never blocks."""
        with self._lock:
            if self._exit_code is not None:
                return self._exit_code
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                # Someone else reaped it (a foreign SIGCHLD handler): gone, status unknown.
                self._exit_code = 255
                return self._exit_code
            if pid == 0:
                return None
            code = os.waitstatus_to_exitcode(status)
            self._exit_code = 128 - code if code < 0 else code  # signal N -> 128+N
            return self._exit_code

    def is_alive(self) -> bool:
        return self._reap() is None

    @property
    def exit_code(self) -> int | None:
        return self._reap()

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.001
        while True:
            code = self._reap()
            if code is not None:
                return code
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                pause = min(pause, left)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def kill(self) -> None:
        with self._lock:
            if self._killed:
                return
            self._killed = True
        if self.is_alive():
            self._signal(signal.SIGHUP)
            self._signal(signal.SIGCONT)  # a stopped job would never act on the hangup
            if self.wait(_KILL_GRACE_S) is None:
                self._signal(signal.SIGKILL)
                self.wait(5.0)
        with self._lock:
            self._closing = True
            if not self._closed:
                try:  # wake a reader blocked in poll(); under the lock, so the pipe is still ours
                    os.write(self._wake_w, b"x")
                except OSError:
                    pass
            close_now = self._users == 0 and not self._closed
            if close_now:
                self._closed = True
        if close_now:
            self._close_fds()

    def _signal(self, sig: int) -> None:
        # The child is a session and process-group leader (setsid in pty.fork): hit the group
        # too, so a pipeline or background job started in the tab goes with it.
        for send in (lambda: os.killpg(self.pid, sig), lambda: os.kill(self.pid, sig)):
            try:
                send()
            except (ProcessLookupError, PermissionError):
                pass

    def _close_fds(self) -> None:
        proc = self._proc
        try:
            proc.fileobj.close()  # type: ignore[attr-defined]  # closes the master fd
        except OSError:
            pass
        proc.closed = True  # type: ignore[attr-defined]  # so its __del__ does nothing
        proc.fd = -1  # type: ignore[attr-defined]
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __repr__(self) -> str:
        return f"PosixPty(pid={self.pid}, exit_code={self._exit_code})"
