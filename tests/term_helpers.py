"""Helpers for the terminal reliability tests: raw socket frames, host RSS, session members."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from typing import Any


def raw_request(socket_path: str, frame: bytes, timeout: float = 15.0) -> dict[str, Any]:
    """Send one hand-written frame (e.g. with a JSON-escaped lone surrogate the CLI cannot
    produce) and return the host's final reply."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(socket_path)
        conn.sendall(frame if frame.endswith(b"\n") else frame + b"\n")
        buffer = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                raise AssertionError(f"the host closed the connection without a final reply: {buffer!r}")
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                reply = json.loads(line)
                if "event" not in reply:
                    return reply
    finally:
        conn.close()


def op(socket_path: str, op_name: str, timeout: float = 15.0, **args: Any) -> dict[str, Any]:
    frame = json.dumps({"id": "t", "op": op_name, "args": args}).encode() + b"\n"
    return raw_request(socket_path, frame, timeout)


def rss_mb(pid: int) -> float:
    """Resident set size of a process, in MB (Linux /proc)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


def reset_peak_rss() -> bool:
    """Start a new peak-RSS measurement for this process (Linux 4.0+: VmHWM is reset)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def peak_rss_mb(pid: int) -> float:
    """Peak resident set size (VmHWM) of a process, in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for pid {pid}")


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes whose session id is `sid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != b"Z":
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def kill_all(pids) -> None:
    """SIGKILL whatever of `pids` still runs (a test's clean-up)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def wait_file(path: str, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            text = open(path).read()
        except FileNotFoundError:
            text = ""
        if text.endswith("\n"):
            return text
        time.sleep(0.05)
    raise AssertionError(f"{path} was not written within {timeout} s")
