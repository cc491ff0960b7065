"""Who is calling on a Unix socket, in the kernel's words rather than the caller's.

Linux: SO_PEERCRED gives the calling process's pid and uid at accept; `/proc/<pid>/stat` gives
its controlling terminal (field 7, tty_nr) and its parent (field 4). The caller's terminals,
nearest first (its own, then its ancestors'), are what the workspace maps to a tab's PTY: a
`tiki bot-chat` that an AI CLI runs in a pty of its own (Gemini CLI, Codex), or one started
with `setsid`, still has the tab's PTY further up, while a process outside every tab has no
tab PTY anywhere above it, whatever token it copied. A process cannot pick its ancestors, and
a tab's PTY is already the controlling terminal of the tab's session, so no other session can
take it.

macOS: LOCAL_PEERPID would give the pid, but mapping a pid to its controlling terminal needs
proc_pidinfo, which the standard library lacks: there, on Windows and over TCP the tab's
token is the check (`Peer` is None).
"""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass

MAX_ANCESTORS = 64


@dataclass(frozen=True)
class Peer:
    pid: int
    uid: int
    ttys: tuple[int, ...] | None
    """Device numbers of the controlling terminals of the caller and its ancestors, nearest
    first; () when it has none (or vanished); None when this system cannot say (no /proc)."""


def peer_of(conn: socket.socket) -> Peer | None:
    """The caller on a connected Unix socket, or None where peer credentials are unavailable."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    pid, uid, _gid = struct.unpack("3i", raw)
    return Peer(pid, uid, terminal_chain(pid))


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, tty_nr) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2:].split()  # the command name may hold spaces and ')'
    return int(fields[1]), int(fields[4])  # fields 4 (ppid) and 7 (tty_nr) of proc(5)


def tty_device(tty_nr: int) -> int:
    """proc(5)'s tty_nr encoding to a device number comparable with `os.stat().st_rdev`."""
    major = (tty_nr >> 8) & 0xFFF
    minor = (tty_nr & 0xFF) | ((tty_nr >> 12) & 0xFFF00)
    return os.makedev(major, minor)


def tty_name(device: int) -> str | None:
    """The path in /dev of terminal `device` (one of `Peer.ttys`), or None if none is found."""
    major, minor = os.major(device), os.minor(device)
    # (Unix98 pseudo-terminals, what terminal windows, tmux and SSH give: majors 136-143.)
    guesses = [f"/dev/pts/{(major - 136) * 256 + minor}"] if 136 <= major <= 143 else []
    try:
        guesses += sorted(f"/dev/{name}" for name in os.listdir("/dev") if name.startswith("tty"))
    except OSError:
        pass
    for path in guesses:
        try:
            if os.stat(path).st_rdev == device:
                return path
        except OSError:
            continue
    return None


def terminal_chain(pid: int) -> tuple[int, ...] | None:
    if not os.path.exists("/proc/self/stat"):
        return None  # no procfs: nothing to say; the token decides
    chain: list[int] = []
    seen: set[int] = set()
    while pid > 0 and pid not in seen and len(seen) < MAX_ANCESTORS:
        seen.add(pid)
        info = _stat(pid)
        if info is None:
            break  # gone (a caller that left proves nothing; ancestors beyond are unknown)
        pid, tty_nr = info
        if tty_nr:
            device = tty_device(tty_nr)
            if device not in chain:
                chain.append(device)
    return tuple(chain)
