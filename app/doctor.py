"""`tiki doctor`: can this machine run tikitaka? Each check says what it found, and a failure
says what to do. Status `info` reports something optional and never fails the doctor."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ..protocol import paths

Check = tuple[str, str, str]  # (ok | FAIL | info, name, detail)


def check_pty() -> Check:
    from ..terminals.pty import SpawnError, spawn

    argv = ["cmd.exe", "/c", "echo tiki-pty-ok"] if sys.platform == "win32" else ["sh", "-c", "echo tiki-pty-ok"]
    try:
        child = spawn(argv, cwd=None, env=dict(os.environ), cols=80, rows=24)
    except SpawnError as exc:
        return ("FAIL", "pty", f"cannot spawn a child in a pseudo-terminal: {exc}")
    output = b""
    deadline = time.monotonic() + 5
    while b"tiki-pty-ok" not in output and time.monotonic() < deadline:
        data = child.read(4096)
        if not data:
            break
        output += data
    child.kill()
    if b"tiki-pty-ok" in output:
        return ("ok", "pty", "a child in a pseudo-terminal ran and its output was read")
    return ("FAIL", "pty", f"no output from a PTY child (got {output[:80]!r})")


def check_socket() -> Check:
    """What the host will need of its socket path: short enough for AF_UNIX, a socket (or
    nothing) there, a directory it can make and write (tried, then undone)."""
    from ..actors.ipc.endpoint import MAX_UNIX_PATH, use_tcp

    path = paths.socket_path()
    size = len(os.fsencode(str(path)))
    if not use_tcp() and size > MAX_UNIX_PATH:
        return ("FAIL", "socket", f"{path} is {size} bytes, longer than the {MAX_UNIX_PATH} a Unix socket path "
                                  "may have: set TIKI_SOCKET to a shorter path (e.g. /tmp/tiki-$USER/s)")
    if path.is_symlink() or (path.exists() and not (path.is_socket() or (use_tcp() and path.is_file()))):
        what = "a directory" if path.is_dir() else "a symlink" if path.is_symlink() else "not a socket"
        return ("FAIL", "socket", f"{path} is {what}: the host cannot listen there; remove it or set TIKI_SOCKET")
    if path.exists():
        from ..protocol import ops
        from .client import ClientTimeout, HostError, NoHost, call

        try:
            pong = call(ops.HOST_PING.name, ops.NoArgs(), timeout=5, socket_path=path)
            return ("ok", "socket", f"a host (pid {pong['pid']}) is running on {path}")
        except NoHost as exc:
            return ("ok", "socket", f"no host answers on {path}; the next host replaces it ({exc})")
        except (ClientTimeout, HostError) as exc:
            return ("FAIL", "socket", f"a host on {path} does not answer properly: {exc}")
    problem = _try_directory(path.parent)
    if problem:
        return ("FAIL", "socket", f"cannot create {path}: {problem} (set TIKI_SOCKET)")
    return ("ok", "socket", f"no host running; a host would listen on {path}")


def _try_directory(directory: Path) -> str | None:
    """Make `directory` and a file in it, as the host will, then remove what was made; None,
    or why it cannot be (os.access would not do: it lets root through even in /proc)."""
    missing = directory
    while not missing.parent.exists() and missing.parent != missing:
        missing = missing.parent
    made = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".tiki-doctor-"):
            pass
    except OSError as exc:
        return f"{directory}: {exc.strerror or exc}"
    finally:
        if made:
            shutil.rmtree(missing, ignore_errors=True)
    return None


def check_dirs() -> Check:
    for directory in (paths.config_dir(), paths.state_dir()):
        problem = _try_directory(directory)
        if problem:
            return ("FAIL", "directories", f"{directory} cannot be created or written ({problem})")
    return ("ok", "directories", f"config {paths.config_dir()}, state {paths.state_dir()}")


def check_gguf(gguf_path: str | None) -> list[Check]:
    """A model file that is there but no GGUF (an HTML error page saved by a download, say)."""
    if not gguf_path or not os.path.isfile(os.path.expanduser(gguf_path)):
        return []  # none set, or missing: the backend check says so
    try:
        with open(os.path.expanduser(gguf_path), "rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        return [("FAIL", "gguf", f"cannot read {gguf_path}: {exc.strerror or exc}")]
    if magic != b"GGUF":
        return [("FAIL", "gguf", f"{gguf_path} is not a GGUF model file (it starts with {magic!r}, not "
                                 "b'GGUF'): download the model again, or fix gguf_path")]
    return []


def run_checks() -> list[Check]:
    from ..actors.host import HostError, load_settings

    checks = [check_pty(), check_socket(), check_dirs()]
    try:
        settings = load_settings()
    except HostError as exc:
        checks.append(("FAIL", "config", str(exc)))
        checks.append(("FAIL", "backend", "cannot check until the settings load"))
        return checks
    checks.append(("ok", "config", f"{paths.settings_file()} " + ("read" if paths.settings_file().exists() else "(none: defaults)")))
    from .commands.coordinator import agent_doctor_checks

    return checks + agent_doctor_checks(settings.coordinator) + check_gguf(settings.coordinator.gguf_path)
