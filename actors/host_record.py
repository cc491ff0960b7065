"""What a running host leaves in the state directory, so that the host after it knows.

While a host runs, a small file keyed by its socket (`paths.host_record`) names the workspace
it serves, its pid and the tab shown last; a clean stop removes it. A host that finds one when
it starts therefore follows one that never stopped -- SIGKILLed, crashed, the machine went down
-- and, unless told which workspace to serve, serves the one its predecessor did, showing the
tab it showed. So `tiki` after a crash brings the same tabs back wherever it is run, not the
workspace of the directory it happens to be run in (`./tiki.toml`) or the default one. A record that names a host still running (`running`) tells
the command line that the host whose socket it cannot find will make it again, and a second
host not to start beside it; the records together tell a host on another socket that the
workspace it would serve is already served (`serving`), and `tiki hosts` what runs
(`running_hosts`).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

from ..protocol import paths


class Predecessor(NamedTuple):  # (not a dataclass: the command line would import `inspect` for it)
    """A host on the same socket that did not stop cleanly."""

    pid: int
    workspace: Path
    active: str | None = None  # the tab it showed last (a UI's), to show again


def left_behind(socket: Path) -> Predecessor | None:
    """The host that last ran on `socket` and never stopped, if its record is there and readable."""
    try:
        data = json.loads(paths.host_record(socket).read_text(encoding="utf-8"))
        active = data.get("active")
        return Predecessor(int(data["pid"]), Path(data["workspace"]), active if isinstance(active, str) else None)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # none (the usual case), or a record cut short: nothing to go on


def running(socket: Path) -> int | None:
    """The pid of the host recorded for `socket` if it still runs (as `tiki serve`: a crashed
    host's pid may since belong to another program, or to a `tiki` command), stopped or not."""
    record = left_behind(socket)
    if record is None or process_state(record.pid, host=True) is None:
        return None
    started = _started_at(record.pid)
    try:
        noted = paths.host_record(socket).stat().st_mtime
    except OSError:
        return None
    # A host writes its record after it started; a process that started after the record was
    # written has the pid of a host that crashed (another host's, on another socket, say).
    return None if started is not None and started > noted + 1 else record.pid


def _started_at(pid: int) -> float | None:
    """When `pid` started (seconds since the epoch), where /proc tells; else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            ticks = int(stat.read().rsplit(b")", 1)[1].split()[19])  # (field 22: start time)
        with open("/proc/stat", "rb") as system:
            boot = next(int(line.split()[1]) for line in system if line.startswith(b"btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def process_state(pid: int, host: bool = False) -> str | None:
    """The state letter of `pid` (T: stopped) if it is a tiki process -- a host (`tiki serve`)
    when `host` --, else None. (A record left by a crash may name a pid some other program has
    since.)"""
    wanted = (b"tiki", b"serve") if host else (b"tiki",)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read()
        if not all(word in words for word in wanted):
            return None
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except FileNotFoundError:
        if os.path.isdir("/proc"):
            return None  # no such process
    except (OSError, IndexError):
        return None
    import subprocess  # (only here: the command line's fast path reads records too)

    try:  # no /proc (macOS, the BSDs): ps tells the same
        out = subprocess.run(["ps", "-o", "stat=,command=", "-p", str(pid)], capture_output=True,
                             text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out[:1] if out and all(word.decode() in out for word in wanted) else None


class Running(NamedTuple):
    """A host that runs now, as its record says: `tiki hosts` lists these."""

    pid: int
    socket: Path
    workspace: Path
    stopped: bool  # SIGSTOP or Ctrl+Z where `tiki serve` runs: it answers nothing until continued


def running_hosts() -> list[Running]:
    """Every host running for this user whose record is in this state directory, by socket."""
    found = []
    try:
        records = sorted((paths.state_dir() / "hosts").glob("*.json"))
    except OSError:  # (a state directory this user cannot read: another user's, say)
        return []
    for record in records:
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            socket, workspace = Path(data["socket"]), Path(data["workspace"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # (being written, or cut short by a crash)
        if paths.host_record(socket) != record:
            continue  # (a copy, or a file of someone else's)
        pid = running(socket)
        if pid is not None:
            found.append(Running(pid, socket, workspace, process_state(pid, host=True) in ("T", "t")))
    return sorted(found, key=lambda host: str(host.socket))


def serving(workspace: Path, besides: Path) -> Running | None:
    """The running host on another socket than `besides` that serves `workspace`, or None. Two
    hosts on one workspace file would each save their own tabs over the other's, and a crash
    would bring back the wrong ones."""
    wanted = workspace.resolve()
    for host in running_hosts():
        if host.socket != besides and host.pid != os.getpid() and host.workspace.resolve() == wanted:
            return host
    return None


def note(socket: Path, workspace: Path, active: str | None = None) -> None:
    """Record that this process serves `workspace` on `socket`, showing tab `active` last
    (atomically: a crash while writing leaves the old record or the new one, never half of one)."""
    record = paths.host_record(socket)
    record.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"pid": os.getpid(), "socket": str(socket), "workspace": str(workspace.absolute()),
                       "active": active})
    handle, temporary = tempfile.mkstemp(dir=record.parent, prefix=".host-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(body)
        os.replace(temporary, record)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def clear(socket: Path) -> None:
    """The host stops cleanly: nothing to restore after it (only its own record is removed)."""
    record = paths.host_record(socket)
    try:
        if json.loads(record.read_text(encoding="utf-8")).get("pid") == os.getpid():
            record.unlink()
    except (OSError, ValueError, AttributeError):
        pass
