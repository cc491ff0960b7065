"""The command line's side of the wire: one request per connection to the running host.

Imports nothing heavy (no Textual, no LLM client), so `tiki terminal-read` starts fast.
"""

from __future__ import annotations

import os
import socket

from pathlib import Path
from typing import Any, Callable

from ..actors import endpoint
from ..protocol import ipc, paths


class NoHost(Exception):
    """No host answers on the socket (exit 3)."""


class HostError(Exception):
    """The host answered with an error (exit 1, or 4 for a timeout)."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class ClientTimeout(Exception):
    """The host did not answer in time (exit 4)."""


def call(
    op: str,
    args: dict[str, Any] | None = None,
    *,
    timeout: float | None = 30.0,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    socket_path: Path | None = None,
) -> Any:
    """Send one request and return its result; events (streaming ops) go to `on_event`."""
    path = socket_path or paths.socket_path()
    try:
        conn, auth = endpoint.connect(path, timeout)
    except (FileNotFoundError, ConnectionRefusedError):
        raise NoHost(f"no tiki host is running at {path}; start one with `tiki` (the TUI) or `tiki serve`") from None
    request = ipc.Request(op=op, args=args or {}, id=os.urandom(4).hex(), token=os.environ.get("TIKI_TAB_TOKEN"),
                          auth=auth)
    try:
        conn.settimeout(timeout)
        conn.sendall(request.to_frame())
        for line in _lines(conn):
            reply = ipc.decode_object(line)
            if "event" in reply:
                if on_event is not None:
                    on_event(reply["event"])
                continue
            if reply.get("ok"):
                return reply.get("result")
            error = reply.get("error") or {}
            details = {k: v for k, v in error.items() if k not in ("code", "message")}
            raise HostError(error.get("code", ipc.INTERNAL), error.get("message", "unknown error"), details)
        raise HostError(ipc.INTERNAL, "the host closed the connection without answering")
    except socket.timeout:
        raise ClientTimeout(f"no answer from the host within {timeout:g} s") from None
    finally:
        conn.close()


def _lines(conn: socket.socket):
    buffer = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            if buffer.strip():
                yield buffer
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if line.strip():
                yield line
        if len(buffer) > ipc.MAX_FRAME:
            raise HostError(ipc.BAD_REQUEST, "reply frame exceeds the size limit")
