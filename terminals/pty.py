"""The PTY session interface: spawn a child program on a pseudo-terminal, talk to it, end it.

`spawn()` picks the platform implementation at call time (`pty_fork` on POSIX, pywinpty on
Windows) and imports it lazily, so importing this module costs nothing. Before anything is
forked, the command is resolved on the child's own PATH, the working directory is checked, and
every string that exec will encode (argv, cwd, environment) is checked to be encodable and free
of NUL characters, so bad input is a `SpawnError` with a clear message rather than a child that
dies at once -- or, worse, a failure after fork in a child that is still a copy of the host.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
from typing import Protocol, runtime_checkable


class SpawnError(Exception):
    """The child could not be started: the message says why ("command not found: foo")."""


class OutOfDescriptors(SpawnError):
    """No terminal could be opened: the host (or the system) is out of file descriptors. Worth
    another try once tabs being closed have given theirs back."""


def out_of_descriptors(exc: BaseException) -> str | None:
    """What to tell a user when `exc` is this process (or the system) out of file descriptors,
    else None. Every tab holds a few (its PTY, its child's pidfd, its threads' wake-ups)."""
    if not isinstance(exc, OSError) or exc.errno not in (errno.EMFILE, errno.ENFILE):
        return None
    if exc.errno == errno.ENFILE:
        return "the system has no file descriptors left (ENFILE): close programs or tabs, then try again"
    try:
        import resource

        limit = f" ({resource.getrlimit(resource.RLIMIT_NOFILE)[0]})"
    except (ImportError, OSError, ValueError):
        limit = ""
    return (f"the host has used all the file descriptors its limit{limit} allows (each tab holds a few): "
            "close some tabs, or start the host with a higher `ulimit -n`")


@runtime_checkable
class PtyProcess(Protocol):
    """A running (or finished) child on a PTY. Safe to use from a reader and a writer thread."""

    pid: int

    def read(self, max_bytes: int = 65536) -> bytes:
        """Block until output arrives; b"" once the child is gone and its output drained."""
        ...

    def write(self, data: bytes, timeout: float | None = None) -> int:
        """Write `data`; returns the bytes written (all, unless `timeout` s passed while the
        child was not reading). OSError if the terminal is closed."""
        ...

    def line_limit(self) -> int | None:
        """The longest input line the child's tty takes whole now (canonical mode), or None."""
        ...

    def resize(self, cols: int, rows: int) -> None: ...

    def is_alive(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> int | None:
        """Block until the child exited and return its exit code (signal N -> 128+N); None if
        it still runs after `timeout` seconds or `kill()` was called meanwhile."""
        ...

    @property
    def exit_code(self) -> int | None: ...

    def kill(self) -> None:
        """End every process of the child's session (hangup/terminate, a grace period, then
        SIGKILL); close the PTY. Idempotent."""
        ...


def spawn(argv: list[str], *, cwd: str | None, env: dict[str, str], cols: int, rows: int) -> PtyProcess:
    """Start `argv` on a new PTY of `cols` x `rows` in `cwd` with exactly `env`."""
    if not argv or not isinstance(argv[0], str) or not argv[0]:
        raise SpawnError("empty command")
    check_spawn_text(argv, cwd, env)
    if cwd is not None and not os.path.isdir(cwd):
        raise SpawnError(f"no such directory: {cwd}")
    executable = resolve_command(argv[0], env, cwd)
    cols, rows = max(1, int(cols)), max(1, int(rows))
    if sys.platform == "win32":
        from . import pty_windows as impl
    else:
        from . import pty_posix as impl
    try:
        return impl.spawn(executable, list(argv), cwd=cwd, env=dict(env), cols=cols, rows=rows)
    except OSError as exc:
        said = out_of_descriptors(exc)
        if said is None:
            raise
        raise OutOfDescriptors(f"cannot open a terminal for {argv[0]}: {said}") from None


def check_spawn_text(argv: list[str], cwd: str | None, env: dict[str, str]) -> None:
    """Refuse what exec cannot pass on: text that does not encode to the OS's bytes (a lone
    surrogate from a JSON client), a NUL character, an environment name with '=' in it."""
    for index, arg in enumerate(argv):
        _check_text(arg, "the command" if index == 0 else f"argument {index}", strict=True)
    if cwd is not None:
        _check_text(cwd, "the working directory", strict=True)
    # The environment comes from the host's own: undecodable bytes there arrive as
    # surrogate escapes, which exec turns back into the same bytes, so only fsencode decides.
    for key, value in env.items():
        _check_text(key, f"environment variable name {_shown(key)}", strict=False)
        if not key or "=" in key:
            raise SpawnError(f"environment variable name {_shown(key)} is empty or contains '='")
        _check_text(value, f"environment variable {_shown(key)}", strict=False)


def _check_text(value: object, what: str, *, strict: bool) -> None:
    if not isinstance(value, str):
        raise SpawnError(f"{what} must be a string, not {type(value).__name__}")
    if "\0" in value:
        raise SpawnError(f"{what} contains a NUL character (at position {value.index(chr(0))}); "
                         "remove it: the OS cannot pass NUL in a command line or environment")
    try:
        if strict:  # text from a client: JSON text with a surrogate in it is not text
            value.encode("utf-8")
        os.fsencode(value)
    except UnicodeEncodeError as exc:
        bad = value[exc.start]
        kind = "lone surrogate" if "\ud800" <= bad <= "\udfff" else "unencodable character"
        raise SpawnError(f"{what} is not valid text ({kind} U+{ord(bad):04X} at position {exc.start}); "
                         "send it as proper Unicode (UTF-8) text") from None


def _shown(text: str) -> str:
    """A name for messages that is safe to encode even when it is the bad part."""
    return ascii(text)


def resolve_command(command: str, env: dict[str, str], cwd: str | None) -> str:
    """The executable `command` names, looked up on env["PATH"] (not the parent's PATH)."""
    if os.path.dirname(command):
        # A path: relative ones are relative to the child's cwd, as a shell there would see it.
        path = command if os.path.isabs(command) or cwd is None else os.path.join(cwd, command)
        if os.path.isdir(path):
            raise SpawnError(f"is a directory: {command}")
        if not os.path.exists(path):
            raise SpawnError(f"command not found: {command}")
        if not os.access(path, os.X_OK):
            raise SpawnError(f"permission denied: {command}")
        return os.path.abspath(path)
    search = env.get("PATH")
    if search is None and sys.platform == "win32":
        search = env.get("Path")
    found = shutil.which(command, path=search if search is not None else os.defpath)
    if found is None:
        raise SpawnError(f"command not found: {command}")
    return found
