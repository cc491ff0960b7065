"""POSIX PTY sessions: `pty_fork` forks and execs the child, this module owns everything after.

Reading, writing, reaping and killing are done with plain syscalls because a tab needs
guarantees a generic PTY library does not give:

- `read()` returns b"" once the child is gone even if a background grandchild still holds the
  PTY open (it would otherwise block forever), and returns at once when `kill()` is called.
  An idle tab costs no wake-ups: the child's pidfd is polled along with the PTY (elsewhere,
  a look every 0.25 s).
- `write()` never blocks past its timeout: the master is non-blocking and a child that stops
  reading gets a partial write, reported as such (flow control, never silent loss).
- `wait()` blocks until the child really exited (a child that closed its stdio but runs on is
  still running), woken by a pidfd/kqueue or by `kill()`; it reaps the child.
- `kill()` ends every process of the child's session (see `session`), may run while another
  thread is blocked in `read()`/`write()`: the fd is closed only when the last of them has
  left, so a recycled fd number is never read by mistake.
- Reaping happens only through `waitpid(WNOHANG)` under one lock, so any thread may ask.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import struct
import sys
import termios
import threading
import time
from typing import Callable, TypeVar

from . import orphans, session
from .pty_fork import fork_exec

_T = TypeVar("_T")
# How long to wait, between polls, before checking whether a silent child has exited.
_IDLE_CHECK_S = 0.25
# Grace between SIGHUP/SIGTERM and SIGKILL in kill().
_KILL_GRACE_S = 1.0
# The longest line a canonical-mode (line-editing) tty takes whole: Linux keeps 4096 bytes
# per line including the newline; beyond it, characters are dropped.
_LINUX_MAX_LINE = 4095


def spawn(executable: str, argv: list[str], *, cwd: str | None, env: dict[str, str], cols: int, rows: int) -> "PosixPty":
    pid, fd = fork_exec(executable, argv, cwd=cwd, env=env, cols=cols, rows=rows)
    return PosixPty(pid, fd)


class PosixPty:
    """A child on a PTY master fd. See the module docstring for the threading contract."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self._fd = fd
        os.set_blocking(fd, False)  # writes wait in poll() with a timeout, never in write()
        self._pidfd = session.open_pidfd(pid)  # readable once the child exits (Linux 5.3+)
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
                # With a pidfd the child's exit wakes this poll; without one, look every 0.25 s.
                idle = None if self._pidfd is not None else _IDLE_CHECK_S
                readable = self._wait(select.POLLIN | select.POLLPRI, 0.0 if child_gone else idle)
                if self._closing:
                    return b""
                if readable:
                    try:
                        data = os.read(self._fd, max_bytes)
                    except BlockingIOError:
                        continue  # woken without data after all
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

    def read_ready(self, max_bytes: int = 65536) -> bytes:
        """What the child has written and `read` would return at once, without waiting; b""
        when nothing is there. A reader that drains this after `read` feeds its screen in big
        pieces (a PTY hands out ~4 KB per read) instead of a piece per read."""
        return self._ask(lambda fd: os.read(fd, max_bytes), b"")  # (EAGAIN: nothing there)

    def output_within(self, timeout: float) -> bool:
        """Whether output (or the end of it) is there within `timeout` s. A reader that looks
        this way before blocking in `read` learns the moment its child's output pauses."""
        if not self._enter():
            return True  # (`read` says the terminal is gone)
        try:
            return self._wait(select.POLLIN | select.POLLPRI, timeout) or self._closing
        finally:
            self._leave()

    def foreground_group(self) -> int | None:
        """The terminal's foreground process group (the child's own while it is at its prompt;
        a job it started while that runs), or None once the terminal is gone. One ioctl."""
        return self._ask(os.tcgetpgrp, None)

    def write(self, data: bytes, timeout: float | None = None) -> int:
        """Write `data`, waiting while the child does not take it; returns the bytes written:
        all of them unless `timeout` s passed first. OSError once the terminal is closed."""
        if not self._enter():
            raise OSError(errno.EBADF, "the terminal is closed")
        deadline = None if timeout is None else time.monotonic() + timeout
        view = memoryview(data)
        done = 0
        try:
            while done < len(data):
                try:
                    done += os.write(self._fd, view[done:])
                    continue
                except (BlockingIOError, InterruptedError):
                    pass
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._wait(select.POLLOUT, _IDLE_CHECK_S if left is None else min(left, _IDLE_CHECK_S))
                if self._closing:
                    raise OSError(errno.EBADF, "the terminal is closed")
            return done
        finally:
            self._leave()

    def line_limit(self) -> int | None:
        """The longest input line the child's tty takes whole right now, or None when the
        child reads raw input (no canonical line editing), where no such limit applies."""
        lflag = self._ask(lambda fd: termios.tcgetattr(fd)[3], None)  # on a master: the slave side's modes
        if lflag is None or not lflag & termios.ICANON:
            return None
        if sys.platform.startswith("linux"):
            return _LINUX_MAX_LINE
        try:
            return max(1, os.fpathconf(self._fd, "PC_MAX_CANON") - 1)
        except (OSError, ValueError):
            return 255

    def resize(self, cols: int, rows: int) -> None:
        """Set the terminal's size (the child gets SIGWINCH); nothing once the tab is closed."""
        winsize = struct.pack("HHHH", max(1, rows), max(1, cols), 0, 0)
        self._ask(lambda fd: fcntl.ioctl(fd, termios.TIOCSWINSZ, winsize), None)

    def tty_device(self) -> int | None:
        """The device number of this PTY's slave side (`st_rdev` of /dev/pts/N, what
        /proc/PID/stat calls tty_nr), by which the host recognises a caller inside this tab.
        Linux only (TIOCGPTN); None elsewhere or once the PTY is closed."""
        return self._ask(_slave_device, None) if sys.platform.startswith("linux") else None

    def _ask(self, question: Callable[[int], _T], default: _T) -> _T:
        """`question(fd)` while the fd stays open (`kill` waits for it to be done); `default`
        when the terminal is closed or the question fails (then `read` says why)."""
        if not self._enter():
            return default
        try:
            return question(self._fd)
        except (OSError, termios.error):
            return default
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

    def _wait(self, events: int, timeout: float | None) -> bool:
        """True if the PTY is ready for `events` (or hung up); False on timeout, a kill(), or
        (when reading, with a pidfd) the child's exit."""
        if sys.platform != "darwin" and hasattr(select, "poll"):
            poller = select.poll()
            poller.register(self._fd, events)
            poller.register(self._wake_r, select.POLLIN)
            if self._pidfd is not None and events & select.POLLIN:
                poller.register(self._pidfd, select.POLLIN)
            ready = {fd for fd, _ in poller.poll(None if timeout is None else timeout * 1000.0)}
        else:  # macOS poll() is unreliable on tty devices; select() is not
            reading = bool(events & (select.POLLIN | select.POLLPRI))
            readable, writable, _ = select.select([self._fd, self._wake_r] if reading else [self._wake_r],
                                                  [] if reading else [self._fd], [], timeout)
            ready = set(readable) | set(writable)
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
                orphans.release(self.pid)
                return self._exit_code
            if pid == 0:
                return None
            orphans.release(self.pid)
            code = os.waitstatus_to_exitcode(status)
            self._exit_code = 128 - code if code < 0 else code  # signal N -> 128+N
            return self._exit_code

    def is_alive(self) -> bool:
        return self._reap() is None

    @property
    def exit_code(self) -> int | None:
        return self._reap()

    def wait(self, timeout: float | None = None) -> int | None:
        """The exit code once the child exited (reaped), or None if it still runs after
        `timeout` s or `kill()` interrupted the wait. Sleeps in a pidfd/kqueue, not a loop."""
        if not self._enter():
            return self._reap()
        try:
            session.wait_exit(self.pid, lambda: self._reap() is not None, self._wake_r, timeout)
        finally:
            self._leave()
        return self._reap()

    def kill(self) -> None:
        """End every process of the child's session (hangup and terminate, a grace period,
        then SIGKILL), reap the child and close the PTY. Idempotent."""
        with self._lock:
            if self._killed:
                return
            self._killed = True
        if self._reap() is None or not session.exists(self.pid):
            session.end_session(self.pid, lambda: self._reap() is not None, _KILL_GRACE_S)
        # else: our child is reaped and its pid belongs to a new process. A pid stays reserved
        # while any process still has it as session id, so the tab's session is gone and the
        # processes with that session id now are someone else's: leave them alone.
        self._reap()
        with self._lock:
            self._closing = True
            if not self._closed:
                try:  # wake threads blocked in poll(); under the lock, so the pipe is still ours
                    os.write(self._wake_w, b"x")
                except OSError:
                    pass
            close_now = self._users == 0 and not self._closed
            if close_now:
                self._closed = True
        if close_now:
            self._close_fds()

    def _close_fds(self) -> None:
        for fd in (self._fd, self._wake_r, self._wake_w, self._pidfd):
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass

    def __repr__(self) -> str:
        return f"PosixPty(pid={self.pid}, exit_code={self._exit_code})"


def _slave_device(fd: int) -> int:
    tiocgptn = getattr(termios, "TIOCGPTN", 0x80045430)  # _IOR('T', 0x30, unsigned int)
    number = struct.unpack("I", fcntl.ioctl(fd, tiocgptn, b"\0" * 4))[0]
    return os.stat(f"/dev/pts/{number}").st_rdev
