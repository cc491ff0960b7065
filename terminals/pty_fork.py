"""POSIX fork/exec of a tab's child onto a new PTY, with nothing in the child that can escape.

The child of a fork in the host is a copy of the host until it execs. If anything raises there
(an argument exec cannot encode, a directory that vanished, a signal), a Python exception would
unwind into the copy of the host's code, which then carries on as a second host: the parent
waits forever for the exec report and the host can no longer stop (issue 8, item 5). So:

- everything exec needs is encoded to bytes *before* the fork (`pty.check_spawn_text` has
  already refused what cannot be encoded), and the host's signals are blocked across the fork
  so no handler can run in the child before it is inside its guard;
- the child runs one function inside `try/finally: os._exit(127)`: whatever happens, the child
  either becomes the program or exits, and never returns into the host's code;
- a failure in the child is written to a close-on-exec pipe as "step:errno" and the parent
  raises it as a `SpawnError`; EOF on the pipe means exec succeeded.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import struct
import sys
import termios

from . import orphans
from .pty import SpawnError, out_of_descriptors

# Signals the host may have ignored or handled; a shell expects the defaults.
_RESET_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGPIPE", "SIGXFSZ", "SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGCHLD",
                 "SIGHUP", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGWINCH")
    if hasattr(signal, name)
)
_ALL_SIGNALS = set(signal.valid_signals()) if hasattr(signal, "valid_signals") else set()
_EXIT_FAILED = 127
# IUTF8: 0x4000 on Linux and macOS, where Python's termios does not always name it (3.11).
_IUTF8 = getattr(termios, "IUTF8", 0x4000 if sys.platform.startswith(("linux", "darwin")) else 0)


def fork_exec(executable: str, argv: list[str], *, cwd: str | None, env: dict[str, str],
              cols: int, rows: int) -> tuple[int, int]:
    """Start the child on a new PTY (it is a session leader with the PTY as its controlling
    terminal). Returns (pid, master fd); raises SpawnError if exec did not happen."""
    exe_b = os.fsencode(executable)
    argv_b = [exe_b, *(os.fsencode(arg) for arg in argv[1:])]
    env_b = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
    cwd_b = os.fsencode(cwd) if cwd is not None else None
    winsize = struct.pack("HHHH", rows, cols, 0, 0)
    try:
        max_fd = min(os.sysconf("SC_OPEN_MAX"), 1 << 20)
    except (OSError, ValueError):
        max_fd = 1 << 16
    report_r, report_w = os.pipe()  # both close-on-exec (non-inheritable)
    blocked = _ALL_SIGNALS and signal.pthread_sigmask(signal.SIG_BLOCK, _ALL_SIGNALS)
    try:
        with orphans.forking() as leaders:  # (its pid registered before anything can reap it)
            pid, master = os.forkpty()
            if pid:
                leaders.add(pid)
    except OSError as exc:
        if _ALL_SIGNALS:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(report_r)
        os.close(report_w)
        if out_of_descriptors(exc):
            raise  # (`spawn` says it in words that name the fix)
        raise SpawnError(f"cannot open a terminal for {argv[0]}: {exc.strerror or exc}") from None
    if pid == 0:
        try:
            _child(report_w, exe_b, argv_b, env_b, cwd_b, winsize, max_fd)
        finally:
            os._exit(_EXIT_FAILED)
    if _ALL_SIGNALS:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    os.close(report_w)
    try:
        report = _read_all(report_r)
    finally:
        os.close(report_r)
    if report:
        _reap(pid)
        os.close(master)
        raise SpawnError(_describe(report, argv[0], cwd))
    os.set_inheritable(master, False)  # another tab's child must never hold this PTY open
    try:
        fcntl.ioctl(master, termios.TIOCSWINSZ, winsize)
    except OSError:
        pass
    return pid, master


def _child(report_w: int, exe: bytes, argv: list[bytes], env: dict[bytes, bytes], cwd: bytes | None,
           winsize: bytes, max_fd: int) -> None:
    """Runs in the forked child, inside the caller's `finally: os._exit(127)`."""
    step = "setup"
    try:
        # Inherited descriptors (other tabs' PTYs, sockets) must not leak into the child.
        os.closerange(3, report_w)
        os.closerange(report_w + 1, max_fd)
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, winsize)
        except OSError:
            pass
        _utf8_line_editing(0)
        step = "chdir"
        if cwd is not None:
            os.chdir(cwd)
        step = "signals"
        for sig in _RESET_SIGNALS:
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        step = "exec"
        os.execve(exe, argv, env)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent; the caller _exits
        code = exc.errno if isinstance(exc, OSError) and exc.errno else 0
        os.write(report_w, f"{step}:{code}:{type(exc).__name__}".encode("ascii", "replace"))


def _utf8_line_editing(fd: int) -> None:
    """Tell the terminal's line editing that input is UTF-8 (IUTF8, as tmux and xterm do): in a
    program that reads whole lines, Backspace then erases a character, not its last byte."""
    if not _IUTF8:
        return
    try:
        modes = termios.tcgetattr(fd)
        modes[0] |= _IUTF8
        termios.tcsetattr(fd, termios.TCSANOW, modes)
    except (termios.error, OSError):
        pass  # (a terminal without the flag: line editing counts bytes, as before)


def _read_all(fd: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except InterruptedError:
            continue
        if not chunk:
            return data
        data += chunk


def _reap(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            break
    orphans.release(pid)


def _describe(report: bytes, command: str, cwd: str | None) -> str:
    step, _, rest = report.decode("ascii", "replace").partition(":")
    code_text, _, kind = rest.partition(":")
    code = int(code_text) if code_text.isdigit() else 0
    reason = os.strerror(code) if code else kind or "unknown error"
    if step == "chdir":
        return f"cannot enter the working directory {cwd}: {reason}"
    if step == "exec":
        if code == errno.ENOENT:
            return f"command not found: {command} ({reason})"
        if code == errno.EACCES:
            return f"permission denied: {command}"
        return f"cannot run {command}: {reason}"
    return f"cannot start {command}: {step} failed: {reason}"
