"""Finding the host a UI attaches to, or starting one in the background (`tiki`, `tiki attach`).

A host started here is `tiki serve` in its own session: no controlling terminal (closing the
terminal, SSH loss or a SIGHUP reaches the UI, never the host), stdin from /dev/null, output
appended to `host.log` in the state directory (`paths.host_log_file`: a host on another socket
than the default one has its own, `host-NAME-XXXXXX.log`); past LOG_ROTATE bytes it becomes
`host.log.1` at the next start, so the log stays bounded and the last one stays readable. The UI waits until it answers. After a host
crash the socket it left is cleared by the new host, which serves the workspace the crashed one
served (actors/host_record).
Imports nothing heavy.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..actors.ipc.endpoint_lost import REMAKE_WAIT
from ..protocol import ops, paths
from .client import ClientTimeout, HostError, NoHost, call

if TYPE_CHECKING:
    import subprocess

READY_TIMEOUT = 60.0  # seconds a new host may take to start its tabs and answer
LOG_ROTATE = 1_000_000  # bytes of host.log after which a background start begins a new one


class HostStartFailed(Exception):
    """The background host did not come up; the message quotes its log."""


def log_file() -> Path:
    return paths.host_log_file()


def running_host(socket_path: Path) -> dict | None:
    """The host.info of the host on `socket_path`, or None when there is none; HostStartFailed
    when one is there but does not answer (starting another would only find it in the way)."""
    if (stopped := stopped_host(socket_path)) is not None:
        raise HostStartFailed(stopped)
    try:
        return call(ops.HOST_INFO.name, {}, timeout=10, socket_path=socket_path, patience=REMAKE_WAIT)
    except NoHost:
        return None
    except ClientTimeout:
        raise HostStartFailed(hung_host(socket_path)) from None
    except HostError:
        return {}  # something answers: a host, even if it refused this question


def hung_host(socket_path: Path) -> str:
    """What to say of a host that takes connections but does not answer: SIGSTOPped or hung."""
    from ..actors.host_record import left_behind  # (light: json and paths)

    record = left_behind(socket_path)
    if record is None:
        return (f"the host at {socket_path} does not answer (stopped or hung): `kill -CONT` it, or kill it "
                "and run tiki again")
    pid = record.pid
    return (f"the host at {socket_path} (pid {pid}) does not answer (stopped or hung): `kill -CONT {pid}`, "
            f"or `kill {pid}` and run tiki again")


def stopped_host(socket_path: Path) -> str | None:
    """What to say when the host recorded for `socket_path` is stopped -- SIGSTOP, or Ctrl+Z
    where `tiki serve` runs in a terminal --, None when it is not (or we cannot tell). Asked
    before a question to the host: a stopped host takes connections and answers none, so the
    question would wait out its whole timeout before `hung_host` could say anything."""
    from ..actors.host_record import left_behind, process_state  # (light: json and paths)

    record = left_behind(socket_path)
    if record is None or process_state(record.pid) not in ("T", "t"):
        return None
    pid = record.pid
    return (f"the host at {socket_path} (pid {pid}) is stopped (SIGSTOP, or Ctrl+Z where it runs): "
            f"`kill -CONT {pid}` (or `fg` in its terminal) to go on, or `kill {pid}` and run tiki again")


def ensure_host(socket_path: Path, workspace: Path | None,
                meanwhile: Callable[[], object] | None = None) -> tuple[bool, dict]:
    """(started, info): the host on `socket_path`, started in the background if none runs.
    `meanwhile` runs while a host started just now boots (the UI loads its toolkit then: the
    two took turns, ~0.25 s of a cold `tiki`)."""
    info = running_host(socket_path)
    if info is not None:
        return False, info
    proc = start_background(workspace)
    if meanwhile is not None:
        meanwhile()
    return True, wait_ready(proc, socket_path)


def start_background(workspace: Path | None) -> subprocess.Popen:
    import subprocess  # (here: every other command imports this module and starts nothing)

    try:
        paths.ready_state_dir()
    except paths.StateDirError as exc:
        raise HostStartFailed(str(exc)) from None
    log = log_file()
    _rotate(log)
    argv = [sys.executable, "-m", "tikitaka.app.cli", "serve"]
    if workspace is not None:
        argv += ["--workspace", str(workspace)]
    try:  # private: it holds what the tabs printed
        handle = os.fdopen(os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")
        if hasattr(os, "fchmod"):  # (one made before logs were private; Windows has no modes to fix)
            os.fchmod(handle.fileno(), 0o600)
    except OSError as exc:
        raise HostStartFailed(f"cannot write the host's log {log} ({exc.strerror}); set TIKI_STATE_DIR to a "
                              "writable directory") from None
    with handle:
        handle.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} started in the background by tiki "
                     f"(pid {os.getpid()})\n".encode())
        handle.flush()
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=handle, stderr=handle,
                                start_new_session=True, close_fds=True)


def _rotate(log: Path) -> None:
    try:
        if log.stat().st_size > LOG_ROTATE:
            os.replace(log, log.with_name(log.name + ".1"))  # (a second `tiki` at once: one wins)
    except OSError:
        pass  # no log yet, or it just went


def wait_ready(proc: subprocess.Popen, socket_path: Path, timeout: float = READY_TIMEOUT) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = running_host(socket_path)
        if info is not None:
            return info  # ours, or one a second `tiki` started at the same moment
        if proc.poll() is not None:
            raise HostStartFailed(f"the host did not start (exit code {proc.returncode}):\n{_log_tail()}\n"
                                  f"(full log: {log_file()})")
        time.sleep(0.02)  # (a failed look costs a refused connect: cheap)
    raise HostStartFailed(f"the host did not answer within {timeout:g} s; see {log_file()}")


def _log_tail(lines: int = 12) -> str:
    try:
        text = log_file().read_text(errors="replace")
    except OSError:
        return "(no log)"
    tail = text.rsplit("--- ", 1)[-1].splitlines()[1:]
    return "\n".join(tail[-lines:]) or "(the log is empty)"
