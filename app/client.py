"""The command line's side of the wire: one request per connection to the running host.

A command succeeds only when the host answered `ok`. What is safe to retry is retried with
backoff for up to `BUSY_PATIENCE` seconds, because the host has not started on the request:
a `busy` answer, a full connection queue, a connection dropped before the host had the whole
request. After that, busy is exit 4 (`HostBusy`) and an unreachable host exit 3 (`NoHost`);
every way of not reaching a host is `NoHost` with one sentence saying what to do.

Imports nothing heavy (no Textual, no LLM client), so `tiki terminal-read` starts fast.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from ..actors import host_record
from ..actors.ipc import endpoint, endpoint_errors, endpoint_lost
from ..protocol import ipc, paths

BUSY_PATIENCE = 10.0  # seconds of retrying a busy host before giving up (exit 4)


class NoHost(Exception):
    """No host can be reached (exit 3)."""


class HostError(Exception):
    """The host answered with an error (exit 1, or 4 for a timeout)."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class ClientTimeout(Exception):
    """The host did not answer in time (exit 4)."""


class HostBusy(ClientTimeout):
    """The host stayed busy for BUSY_PATIENCE seconds (exit 4)."""


class _LocalError(Exception):
    """Wraps an OSError raised by our own output while a reply streamed in."""


class _NoAnswer(HostError):
    def __init__(self, message: str) -> None:
        super().__init__(ipc.INTERNAL, message)


class _Retry(Exception):
    """Nothing was done yet: try again, or raise `final` when patience (or `within`, the
    seconds this kind of wait may take at most) runs out."""

    def __init__(self, final: Exception, within: float | None = None) -> None:
        super().__init__(str(final))
        self.final = final
        self.within = within


def call(
    op: str,
    args: Mapping[str, Any] | None = None,
    *,
    timeout: float | None = 30.0,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    socket_path: Path | None = None,
    patience: float = BUSY_PATIENCE,
) -> Any:
    """Send one request and return its result; events (streaming ops) go to `on_event`."""
    path = socket_path or paths.socket_path()
    request = ipc.Request(op=op, args=dict(args or {}), id=os.urandom(4).hex(), token=os.environ.get("TIKI_TAB_TOKEN"))
    try:
        frame = request.to_frame()
    except ipc.FrameError as exc:
        raise HostError(ipc.BAD_REQUEST, f"request too large to send ({exc}); put large text in a file") from None
    began = time.monotonic()
    give_up = began + patience
    pause = 0.05
    while True:
        try:
            return _exchange(path, frame, timeout, on_event)
        except _Retry as retry:
            limit = give_up if retry.within is None else min(give_up, began + retry.within)
            if time.monotonic() + pause > limit:
                final = retry.final
                if isinstance(final, HostBusy):
                    reason = str(final).removeprefix("host is busy: ").split(";")[0]
                    final = HostBusy(f"the host stayed busy for {patience:g} s ({reason}); try again later")
                raise final from None
            time.sleep(pause)
            pause = min(pause * 2, 1.0)


def _exchange(path: Path, frame: bytes, timeout: float | None,
              on_event: Callable[[dict[str, Any]], None] | None) -> Any:
    try:
        conn = endpoint.connect(path)
    except endpoint_errors.QueueFull as exc:
        raise _Retry(NoHost(str(exc))) from None
    except endpoint_errors.NoEndpoint as exc:
        pid = host_record.running(path)
        if pid is None:
            raise NoHost(str(exc)) from None
        # Its socket file was removed under it: it makes it again within a second or so.
        raise _Retry(NoHost(endpoint_lost.gone(path, pid)), endpoint_lost.REMAKE_WAIT) from None
    except endpoint_errors.EndpointError as exc:
        raise NoHost(str(exc)) from None
    try:
        conn.settimeout(timeout)
        try:
            conn.sendall(frame)
        except (BrokenPipeError, ConnectionResetError):
            # The host closed before it had our whole request: not done. It may have said why.
            conn.settimeout(1.0)
            try:
                return _answer(_lines(conn), None)
            except (_NoAnswer, OSError):
                pass
            raise _Retry(NoHost(f"the host at {path} closed the connection before reading the request; "
                                "see its log, or restart it")) from None
        return _answer(_lines(conn), on_event)
    except _LocalError as exc:
        raise exc.__cause__ from None  # type: ignore[misc]
    except socket.timeout:
        raise ClientTimeout(f"no answer from the host within {timeout:g} s") from None
    except OSError as exc:
        raise HostError(ipc.INTERNAL, f"the connection to the host broke before its answer ({exc.strerror or exc}); "
                                      "the request may or may not have been done: check with `tiki log`") from None
    finally:
        conn.close()


def _answer(lines: Iterator[bytes], on_event: Callable[[dict[str, Any]], None] | None) -> Any:
    """The result of the final frame, or the error it carries."""
    for line in lines:
        try:
            reply = ipc.decode_object(line, ipc.MAX_REPLY, check=False)
        except ipc.FrameError as exc:
            raise HostError(ipc.INTERNAL, f"unreadable answer from the host: {exc}") from None
        if "event" in reply:
            if on_event is not None:
                try:
                    on_event(reply["event"])
                except OSError as exc:  # our own output failed, not the connection
                    raise _LocalError() from exc
            continue
        if reply.get("ok"):
            return reply.get("result")
        error = reply.get("error") or {}
        code, message = error.get("code", ipc.INTERNAL), error.get("message", "unknown error")
        if code == ipc.BUSY:
            raise _Retry(HostBusy(message))
        details = {k: v for k, v in error.items() if k not in ("code", "message")}
        raise HostError(code, message, details)
    raise _NoAnswer("the host closed the connection without answering; the request may or may not have "
                    "been done: check with `tiki log`")


def _lines(conn: socket.socket) -> Iterator[bytes]:
    buffer = bytearray()
    while True:
        chunk = conn.recv(1 << 20)
        if not chunk:
            if buffer.strip():
                yield bytes(buffer)
            return
        start = len(buffer)
        buffer += chunk
        while (newline := buffer.find(b"\n", start)) >= 0:
            line = bytes(buffer[:newline])
            del buffer[:newline + 1]
            start = 0
            if line.strip():
                yield line
        if len(buffer) > ipc.MAX_REPLY:
            raise HostError(ipc.INTERNAL, f"a reply frame from the host exceeds {ipc.MAX_REPLY} bytes")
