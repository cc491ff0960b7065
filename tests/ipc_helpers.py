"""Raw socket clients for IPC tests: one-shot requests, held connections and a hostile crowd.

These speak the wire directly (protocol/ipc.py) so tests can do what the `tiki` CLI never
does: hold a connection open, drip bytes, hang up mid-request, send garbage.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from typing import Any


def connect(env: dict[str, str], timeout: float = 20.0) -> socket.socket:
    """A connection to the host of `env`, past the TCP secret line when in TCP mode."""
    path = env["TIKI_SOCKET"]
    if env.get("TIKI_IPC") == "tcp":
        info = json.loads(open(path).read())
        conn = socket.create_connection(("127.0.0.1", info["port"]), timeout=timeout)
        conn.sendall(f"AUTH {info['auth']}\n".encode())
        return conn
    deadline = time.monotonic() + timeout
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(timeout)
        try:
            conn.connect(path)
            return conn
        except BlockingIOError:  # the listen queue is full for a moment: like the CLI, retry
            conn.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def read_all(conn: socket.socket) -> bytes:
    data = b""
    try:
        while chunk := conn.recv(65536):
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return data


def final_reply(data: bytes) -> dict[str, Any] | None:
    """The last frame of a reply stream, or None when it is not a JSON object with `ok`."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if not lines:
        return None
    try:
        reply = json.loads(lines[-1])
    except ValueError:
        return None
    return reply if isinstance(reply, dict) and "ok" in reply else None


def raw(env: dict[str, str], payload: bytes, timeout: float = 20.0) -> dict[str, Any] | None:
    """Send `payload` on a fresh connection, half-close, and return the final reply."""
    conn = connect(env, timeout)
    try:
        try:
            conn.sendall(payload)
            conn.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return final_reply(read_all(conn))
    finally:
        conn.close()


def request(env: dict[str, str], op: str, timeout: float = 20.0, **args: Any) -> dict[str, Any] | None:
    return raw(env, json.dumps({"id": "t", "op": op, "args": args}).encode() + b"\n", timeout)


def hold(env: dict[str, str], op: str, **args: Any) -> socket.socket:
    """Send a request and keep the connection open (the reply is left unread)."""
    conn = connect(env)
    conn.sendall(json.dumps({"id": "h", "op": op, "args": args}).encode() + b"\n")
    return conn


LONG_WAIT = {"idle_ms": 3_600_000, "timeout_ms": 3_600_000}  # a wait that lasts an hour


class HostileCrowd:
    """`size` clients that keep hitting the socket until `stop()`: a third connect and say
    nothing, a third drip one byte a second, and a third are hour-long `terminal.wait`s that
    hang up at once (a fresh batch every second). Dropped clients are replaced at once.
    One thread, non-blocking sockets."""

    def __init__(self, env: dict[str, str], tab: str, size: int = 200) -> None:
        self.env, self.tab = env, tab
        self.targets = {"idle": size // 3, "drip": size // 3}
        self.waits_per_second = size - 2 * (size // 3)
        self.counts = {"idle": 0, "drip": 0}
        self.connects = 0
        self.dropped = 0  # idle/dripping connections the host ended
        self.abandoned = 0  # waits sent and hung up on
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hostile-crowd", daemon=True)

    def start(self) -> "HostileCrowd":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _connect(self) -> socket.socket | None:
        try:
            conn = connect(self.env, 5.0)
        except OSError:
            return None  # backlog full: try again next round
        self.connects += 1
        conn.setblocking(False)
        return conn

    def _abandon_waits(self) -> None:
        frame = json.dumps({"op": "terminal.wait", "args": {"name": self.tab, **LONG_WAIT}}).encode() + b"\n"
        for _ in range(self.waits_per_second):
            conn = self._connect()
            if conn is None:
                continue
            try:
                conn.send(frame)
            except OSError:
                pass
            conn.close()  # the host must notice and end the wait
            self.abandoned += 1

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        drip = b'{"op": "terminal.list", "args": {}}'
        next_waits = 0.0
        try:
            while not self._stop.is_set():
                for kind, target in self.targets.items():
                    while self.counts[kind] < target and not self._stop.is_set():
                        conn = self._connect()
                        if conn is None:
                            break
                        sel.register(conn, selectors.EVENT_READ, {"kind": kind, "next": 0.0, "sent": 0})
                        self.counts[kind] += 1
                now = time.monotonic()
                if now >= next_waits:
                    next_waits = now + 1.0
                    self._abandon_waits()
                for key, _ in sel.select(0.05):
                    try:
                        data = key.fileobj.recv(65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data or b"\n" in data:  # dropped (with or without a reply)
                        sel.unregister(key.fileobj)
                        key.fileobj.close()
                        self.counts[key.data["kind"]] -= 1
                        self.dropped += 1
                now = time.monotonic()
                for key in list(sel.get_map().values()):
                    state = key.data
                    if state["kind"] == "drip" and now >= state["next"]:
                        state["next"] = now + 1.0
                        try:
                            key.fileobj.send(drip[state["sent"] % len(drip):][:1])
                            state["sent"] += 1
                        except OSError:
                            pass
        finally:
            for key in list(sel.get_map().values()):
                key.fileobj.close()
            sel.close()
