"""The host's local socket: where the `tiki` command line and peer AIs reach the actors.

A Unix socket in a 0700 directory, itself 0600 (or loopback TCP with a secret: see
`endpoint`). One request per connection. The socket is bound when the server is created, so a
host that cannot listen fails to start (and says why) instead of running deaf.

Threads, all owned by the host's supervisor:
- `ipc.accept`: one loop accepts and reads requests without a thread per connection
  (`ipc_conn.Acceptor`: one deadline per request, TCP secret first, peer credentials);
  if it ever fails it is restarted and nothing else notices;
- `ipc.connection`: one short-lived task per complete request, at most `MAX_HANDLERS` at a
  time, of which long ones (`terminal.wait`, streaming `ask`) may take at most `MAX_LONG`, so
  quick requests (`terminal-list`, `shutdown`) always find room. Beyond that the answer is
  `busy` (the CLI retries it). A long handler ends when its client hangs up.

Malformed, oversized or unknown requests get a JSON error and the server keeps serving; an
error a handler did not expect is logged once (event log) and answered as `internal`.

The socket file is looked at every second or so (`_keep_endpoint`): one removed under a
running host (a /tmp cleaner, `rm -rf` of its directory) is made again, with the host's record
of itself, so the command line and `tiki` find the same host and its tabs, instead of starting a
second host beside one nobody could reach any more.
"""

from __future__ import annotations

import os
import socket
import threading
import traceback
from pathlib import Path
from typing import Any, Callable

import pykka

from ...protocol import ipc, ops
from ...protocol.schema import SchemaError, check
from ...terminals.pty import out_of_descriptors
from ..errors import TikiError
from .connection import Acceptor, send_quietly
from .context import OpContext
from .endpoint import identity, listen, release
from .endpoint_errors import EndpointError
from .endpoint_lost import remake
from .identity import Peer

MAX_HANDLERS = 128  # requests being answered at once (one thread each)
MAX_LONG = 112  # of which long ones (`Op.long`: waits, streams): the rest is kept for quick requests
SEND_TIMEOUT = 60.0  # a client that stops reading its reply for this long is dropped

Handler = Callable[[OpContext, dict[str, Any]], Any]
__all__ = ["IpcServerActor", "OpContext", "Handler"]


class _Slots:
    """How many requests are being answered, and how many of them are long."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.handling = 0
        self.long = 0

    def take(self, long: bool) -> bool:
        with self._lock:
            if self.handling >= MAX_HANDLERS or (long and self.long >= MAX_LONG):
                return False
            self.handling += 1
            self.long += long
            return True

    def give(self, long: bool) -> None:
        with self._lock:
            self.handling -= 1
            self.long -= long


class IpcServerActor(pykka.ThreadingActor):
    def __init__(self, path: Path, handlers: dict[str, tuple[ops.Op, Handler]], host: Any,
                 bound: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.path = path
        self._handlers = handlers
        self._host = host
        self._supervisor = host.supervisor
        # Bound here, in the caller's thread: a failure reaches Host.start as an EndpointError.
        self._listener, self._auth = listen(path)
        self.endpoint = identity(path)  # what `release` removes at the end, and nothing else
        if bound is not None:  # the socket is this host's, and no client has been answered yet
            bound()
        self._endpoint_trouble: str | None = None  # said once, until the endpoint is fine again
        self._acceptor = Acceptor(self._listener, self._auth, self._dispatch,
                                  lambda exc: self._supervisor.report("ipc.connection", exc),
                                  keep=self._keep_endpoint)
        self._slots = _Slots()
        host.add_service("ipc.connections", self)

    def on_start(self) -> None:
        self._supervisor.thread("ipc.accept", self._acceptor.run)

    def on_stop(self) -> None:
        self._acceptor.stop()
        try:
            self._listener.close()
        except OSError:
            pass
        release(self.path, self.endpoint)

    def _keep_endpoint(self) -> tuple[socket.socket, str | None] | None:
        """On the accept thread, every second or so: the host's record and socket file made
        again if they are gone; the new listener, or None when nothing changed. Another file or
        another host's socket there now is left alone (and said once): not this host's to remove."""
        self._host.keep_record()
        now = identity(self.path)
        if now is not None and self.endpoint is not None and now[:2] == self.endpoint[:2]:
            return None  # (the same file: only a chmod or the like changes its ctime)
        if now is None:
            try:
                self._listener, self._auth = remake(self.path, self._listener, self._auth)
            except EndpointError as exc:
                self._trouble(f"the socket {self.path} was removed and cannot be made again: {exc}")
                return None
            self.endpoint = identity(self.path)
            self._endpoint_trouble = None
            self._host.event_log.append("socket_remade", detail=f"{self.path} was removed; made again")
            return self._listener, self._auth
        self._trouble(f"the socket {self.path} was replaced by another file: this host (pid {os.getpid()}) "
                      f"cannot be reached there any more; `kill {os.getpid()}` stops it and its tabs")
        return None

    def _trouble(self, what: str) -> None:
        if what != self._endpoint_trouble:
            self._endpoint_trouble = what
            self._host.event_log.append("socket_lost", detail=what)

    def stats(self) -> dict[str, int]:
        """For `host.info`: what the socket is holding right now. Safe from any thread."""
        return {"reading": self._acceptor.pending, "handling": self._slots.handling, "long": self._slots.long,
                **self._acceptor.counts}

    # -- on the accept thread: decide, never block -----------------------------------------

    def _dispatch(self, conn: socket.socket, line: bytes, peer: Peer | None) -> None:
        try:
            request = ipc.decode_request(line)
        except ipc.FrameError as exc:
            send_quietly(conn, ipc.error_frame("", exc.code, str(exc)))
            conn.close()
            return
        entry = self._handlers.get(request.op)
        if entry is None:
            known = ", ".join(sorted(self._handlers))
            send_quietly(conn, ipc.error_frame(request.id, ipc.UNKNOWN_OP,
                                               f"unknown op {ipc.clip(request.op, 80)!r}; known ops: {known}"))
            conn.close()
            return
        op, handler = entry
        long = op.long
        if not self._slots.take(long):
            what = "long requests (waits, asks)" if long else "requests"
            send_quietly(conn, ipc.error_frame(request.id, ipc.BUSY, f"host is busy: too many open {what}; "
                                                                     "try again shortly"))
            conn.close()
            return
        try:
            self._supervisor.task("ipc.connection", self._serve, conn, request, op, handler, peer)
        except BaseException:  # no thread to be had (RuntimeError): answer busy, keep the slot count right
            self._slots.give(long)
            send_quietly(conn, ipc.error_frame(request.id, ipc.BUSY, "host is busy: no thread available; "
                                                                     "try again shortly"))
            conn.close()
            raise

    # -- on a task thread: answer one request ----------------------------------------------

    def _serve(self, conn: socket.socket, request: ipc.Request, op: ops.Op, handler: Handler,
               peer: Peer | None) -> None:
        after_reply: list[Callable[[], None]] = []
        try:
            conn.setblocking(True)
            conn.settimeout(SEND_TIMEOUT)

            def emit(event: dict[str, Any]) -> None:
                if not op.streaming:  # only streaming ops promise their clients events
                    raise RuntimeError(f"{op.name} is not a streaming op")
                conn.sendall(ipc.event_frame(request.id, event))

            ctx = OpContext(self._host, request.token, emit, request.id, after_reply, peer=peer, conn=conn)
            try:
                conn.sendall(self._answer(ctx, request, op, handler))
            except OSError:
                pass  # the client hung up before its answer; nothing to tell anyone
        finally:
            conn.close()
            self._slots.give(op.long)
            for callback in after_reply:
                callback()

    def _answer(self, ctx: OpContext, request: ipc.Request, op: ops.Op, handler: Handler) -> bytes:
        try:
            check(op.args, request.args)
        except SchemaError as exc:
            return ipc.error_frame(request.id, ipc.BAD_REQUEST, f"bad arguments for {op.name}: {exc}")
        try:
            result = handler(ctx, request.args)
            return ipc.ok_frame(request.id, result)
        except TikiError as exc:
            return ipc.error_frame(request.id, exc.code, exc.message, **exc.details)
        except pykka.ActorDeadError as exc:
            return ipc.error_frame(request.id, ipc.INTERNAL, f"an actor is gone: {exc}")
        except pykka.Timeout as exc:
            return ipc.error_frame(request.id, ipc.INTERNAL, f"{request.op}: a part of the host did not answer "
                                                             f"in time ({exc}); see `tiki status`")
        except ipc.FrameError as exc:
            return ipc.error_frame(request.id, ipc.INTERNAL, f"reply too large: {exc}")
        except OSError as exc:
            if ctx.client_gone():
                raise  # it went away mid-stream (an event could not be sent): nobody to answer
            return ipc.error_frame(request.id, ipc.INTERNAL, f"{request.op} failed: {out_of_descriptors(exc) or exc}")
        except (TypeError, ValueError, KeyError) as exc:
            return ipc.error_frame(request.id, ipc.BAD_REQUEST, f"bad arguments for {request.op}: {exc}")
        except Exception as exc:  # noqa: BLE001 - the host survives every bad request
            self._host.event_log.append("internal_error", detail=f"{request.op}: {exc!r}",
                                        trace=traceback.format_exc(limit=8))
            return ipc.error_frame(request.id, ipc.INTERNAL, f"{request.op} failed: {exc!r}")
