"""`tiki doctor`: can this machine run tikitaka? Each check says what it found."""

from __future__ import annotations

import os
import sys
import time

from ..protocol import paths

Check = tuple[str, bool, str]


def check_pty() -> Check:
    from ..terminals.pty import SpawnError, spawn

    argv = ["cmd.exe", "/c", "echo tiki-pty-ok"] if sys.platform == "win32" else ["sh", "-c", "echo tiki-pty-ok"]
    try:
        child = spawn(argv, cwd=None, env=dict(os.environ), cols=80, rows=24)
    except SpawnError as exc:
        return ("pty", False, f"cannot spawn a child in a pseudo-terminal: {exc}")
    output = b""
    deadline = time.monotonic() + 5
    while b"tiki-pty-ok" not in output and time.monotonic() < deadline:
        data = child.read(4096)
        if not data:
            break
        output += data
    child.kill()
    if b"tiki-pty-ok" in output:
        return ("pty", True, "a child in a pseudo-terminal ran and its output was read")
    return ("pty", False, f"no output from a PTY child (got {output[:80]!r})")


def check_socket() -> Check:
    path = paths.socket_path()
    directory = path.parent
    if path.exists():
        from ..actors.endpoint import is_live

        if is_live(path):
            return ("socket", True, f"a host is running on {path}")
        return ("socket", True, f"{path} is a stale socket; the next host replaces it")
    parent = directory if directory.exists() else directory.parent
    if os.access(parent, os.W_OK):
        return ("socket", True, f"no host running; a host would listen on {path}")
    return ("socket", False, f"cannot create {path}: {parent} is not writable (set TIKI_SOCKET)")


def check_dirs() -> Check:
    for directory in (paths.config_dir(), paths.state_dir()):
        probe = directory if directory.exists() else directory.parent
        while not probe.exists():
            probe = probe.parent
        if not os.access(probe, os.W_OK):
            return ("directories", False, f"{directory} cannot be created or written")
    return ("directories", True, f"config {paths.config_dir()}, state {paths.state_dir()}")


def run_checks() -> list[Check]:
    checks = [check_pty(), check_socket(), check_dirs()]
    try:
        from .agent_commands import agent_doctor_checks
    except ImportError:
        return checks
    return checks + list(agent_doctor_checks())
