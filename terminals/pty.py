"""The PTY session interface: spawn a child program on a pseudo-terminal, talk to it, end it.

`spawn()` picks the platform implementation at call time (ptyprocess on POSIX, pywinpty on
Windows) and imports it lazily, so importing this module costs nothing. Before anything is
forked, the command is resolved on the child's own PATH and the working directory is checked,
so a typo is a `SpawnError` with a clear message rather than a child that dies at once.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Protocol, runtime_checkable


class SpawnError(Exception):
    """The child could not be started: the message says why ("command not found: foo")."""


@runtime_checkable
class PtyProcess(Protocol):
    """A running (or finished) child on a PTY. Safe to use from a reader and a writer thread."""

    pid: int

    def read(self, max_bytes: int = 65536) -> bytes:
        """Block until output arrives; b"" once the child is gone and its output drained."""
        ...

    def write(self, data: bytes) -> None:
        """Write all of `data`; OSError if the child is gone."""
        ...

    def resize(self, cols: int, rows: int) -> None: ...

    def is_alive(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> int | None:
        """Exit code (signal N -> 128+N), or None if still running after `timeout` seconds."""
        ...

    @property
    def exit_code(self) -> int | None: ...

    def kill(self) -> None:
        """Hang up, then SIGKILL after a short grace; close the PTY. Idempotent."""
        ...


def spawn(argv: list[str], *, cwd: str | None, env: dict[str, str], cols: int, rows: int) -> PtyProcess:
    """Start `argv` on a new PTY of `cols` x `rows` in `cwd` with exactly `env`."""
    if not argv or not isinstance(argv[0], str) or not argv[0]:
        raise SpawnError("empty command")
    if cwd is not None and not os.path.isdir(cwd):
        raise SpawnError(f"no such directory: {cwd}")
    executable = resolve_command(argv[0], env, cwd)
    cols, rows = max(1, int(cols)), max(1, int(rows))
    if sys.platform == "win32":
        from . import pty_windows as impl
    else:
        from . import pty_posix as impl
    return impl.spawn(executable, list(argv), cwd=cwd, env=dict(env), cols=cols, rows=rows)


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
