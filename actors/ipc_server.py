"""The host's local socket: where the `tiki` command line and peer AIs reach the actors.

A Unix socket in a 0700 directory, itself 0600 (or, on Windows, loopback TCP with a secret:
see `endpoint`). One request per connection, each served on
its own thread (a long `terminal-wait` or `ask` never holds up anyone else). Malformed,
oversized or unknown requests get a JSON error and the server keeps serving. A stale socket
left by a dead host is replaced; a live one is refused with a message that says what to do.
"""

from __future__ import annotations

import hmac
import socket
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pykka

from ..protocol import ipc
from .endpoint import listen
from .errors import TikiError

READ_TIMEOUT = 10.0  # a client that connects and sends nothing is dropped after this
MAX_CONNECTIONS = 128  # beyond this, new connections get a "busy" error instead of a thread


@dataclass
class OpContext:
    """What a request handler gets besides its arguments."""

    host: Any
    token: str | None
    emit: Callable[[dict[str, Any]], None]
    request_id: str
    after_reply: list[Callable[[], None]] = field(default_factory=list)
    """Callbacks run once the final reply has been sent (e.g. shutting the host down)."""

    @property
    def caller(self) -> dict[str, Any] | None:
        """The tab whose TIKI_TAB_TOKEN came with the request: {"name", "former_names"}."""
        if not self.token:
            return None
        return self.host.workspace.caller_for_token(self.token).get(timeout=5)

    @property
    def caller_tab(self) -> str | None:
        caller = self.caller
        return caller["name"] if caller else None


Handler = Callable[[OpContext, dict[str, Any]], Any]


class IpcServerActor(pykka.ThreadingActor):
    def __init__(self, path: Path, handlers: dict[str, tuple[Handler, bool]], host: Any) -> None:
        super().__init__()
        self.path = path
        self._handlers = handlers
        self._host = host
        self._listener: socket.socket | None = None
        self._auth: str | None = None  # the host secret requests must carry (TCP endpoints)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def on_start(self) -> None:
        self._listener, self._auth = listen(self.path)
        threading.Thread(target=self._accept_loop, name="tiki-ipc-accept", daemon=True).start()

    def on_stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        self.path.unlink(missing_ok=True)

    def _accept_loop(self) -> None:
        while True:
            listener = self._listener
            if listener is None:
                return
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):
                _send(conn, ipc.error_frame("", ipc.REFUSED, "host is busy: too many open requests"))
                conn.close()
                continue
            threading.Thread(target=self._serve, args=(conn,), name="tiki-ipc-conn", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(READ_TIMEOUT)
            try:
                line = _read_line(conn)
            except TimeoutError:
                _send(conn, ipc.error_frame("", ipc.BAD_REQUEST, "no request received within 10 s"))
                return
            except ipc.FrameError as exc:
                _send(conn, ipc.error_frame("", exc.code, str(exc)))
                _drain(conn)  # let the client finish writing so it can read our answer
                return
            if line is None:
                return  # the client went away without asking anything
            conn.settimeout(None)
            after_reply: list[Callable[[], None]] = []
            try:
                _send(conn, self._answer(conn, line, after_reply))
            finally:
                for callback in after_reply:
                    callback()
        except OSError:
            pass  # the client hung up mid-answer; nothing to tell anyone
        finally:
            conn.close()
            self._slots.release()

    def _answer(self, conn: socket.socket, line: bytes, after_reply: list[Callable[[], None]]) -> bytes:
        try:
            request = ipc.decode_request(line)
        except ipc.FrameError as exc:
            return ipc.error_frame("", exc.code, str(exc))
        if self._auth is not None and not hmac.compare_digest(request.auth or "", self._auth):
            return ipc.error_frame(request.id, ipc.REFUSED, "refused: the request lacks this host's secret")
        entry = self._handlers.get(request.op)
        if entry is None:
            known = ", ".join(sorted(self._handlers))
            return ipc.error_frame(request.id, ipc.UNKNOWN_OP, f"unknown op {request.op!r}; known ops: {known}")
        handler, _streaming = entry

        def emit(event: dict[str, Any]) -> None:
            _send(conn, ipc.event_frame(request.id, event))

        ctx = OpContext(self._host, request.token, emit, request.id, after_reply)
        try:
            result = handler(ctx, request.args)
            return ipc.ok_frame(request.id, result)
        except TikiError as exc:
            return ipc.error_frame(request.id, exc.code, exc.message, **exc.details)
        except pykka.ActorDeadError as exc:
            return ipc.error_frame(request.id, ipc.INTERNAL, f"an actor is gone: {exc}")
        except ipc.FrameError as exc:
            return ipc.error_frame(request.id, ipc.INTERNAL, f"reply too large: {exc}")
        except (TypeError, ValueError, KeyError) as exc:
            return ipc.error_frame(request.id, ipc.BAD_REQUEST, f"bad arguments for {request.op}: {exc}")
        except Exception as exc:  # noqa: BLE001 - the host survives every bad request
            self._host.event_log.append("internal_error", detail=f"{request.op}: {exc!r}",
                                        trace=traceback.format_exc(limit=8))
            return ipc.error_frame(request.id, ipc.INTERNAL, f"{request.op} failed: {exc!r}")


def _read_line(conn: socket.socket) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            if not chunks:
                return None
            return b"".join(chunks)  # no trailing newline: take what came
        newline = chunk.find(b"\n")
        if newline >= 0:
            chunks.append(chunk[:newline])
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > ipc.MAX_FRAME:
            raise ipc.FrameError(f"request exceeds the {ipc.MAX_FRAME}-byte limit")


def _send(conn: socket.socket, frame: bytes) -> None:
    conn.sendall(frame)


def _drain(conn: socket.socket, limit: int = 64 * ipc.MAX_FRAME) -> None:
    conn.settimeout(1.0)
    try:
        while limit > 0:
            chunk = conn.recv(65536)
            if not chunk:
                return
            limit -= len(chunk)
    except OSError:
        return
