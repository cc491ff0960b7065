"""`tiki doctor`: can this machine run tikitaka? Each check says what it found, and a failure
says what to do. Status `info` reports something optional and never fails the doctor."""

from __future__ import annotations

import os
import sys
import time

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
    path = paths.socket_path()
    directory = path.parent
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
    parent = directory if directory.exists() else directory.parent
    if os.access(parent, os.W_OK):
        return ("ok", "socket", f"no host running; a host would listen on {path}")
    return ("FAIL", "socket", f"cannot create {path}: {parent} is not writable (set TIKI_SOCKET)")


def check_dirs() -> Check:
    for directory in (paths.config_dir(), paths.state_dir()):
        probe = directory if directory.exists() else directory.parent
        while not probe.exists():
            probe = probe.parent
        if not os.access(probe, os.W_OK):
            return ("FAIL", "directories", f"{directory} cannot be created or written")
    return ("ok", "directories", f"config {paths.config_dir()}, state {paths.state_dir()}")


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

    return checks + agent_doctor_checks(settings.coordinator)
