"""Accepting connections and reading each one's request line, on one thread, for the IPC server.

A connection costs no thread until its request has arrived whole: one selector loop accepts,
reads every pending connection without blocking, and enforces the limits that keep a broken or
hostile client from holding the host:

- one deadline per request (`REQUEST_DEADLINE` from accept), not per read: a client dripping a
  byte at a time gets an error reply at the deadline and is dropped;
- at most `max_pending` connections may be mid-request; beyond that the oldest is dropped
  (with a busy reply), so connections that send nothing never starve new ones;
- on loopback TCP the `AUTH <secret>` line is checked first, before any request is read;
- on Linux the kernel's word on the caller (peer credentials) is taken at accept: another uid
  is refused, the rest travels with the request for identity checks (see `peer_identity`);
- an oversized request is answered at once, then drained briefly so the client can read it.

A complete line goes to `dispatch(conn, line, peer)`, which owns the connection from then on.
Replies sent from this thread are small error frames, written without blocking.
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import time
from typing import Any, Callable

from ...protocol import ipc
from .identity import peer_of

REQUEST_DEADLINE = 5.0  # seconds from accept to a complete request line
DRAIN_TIME = 1.0  # how long an answered bad client may keep sending before it is closed
DRAIN_LIMIT = 4 * ipc.MAX_REQUEST
ACCEPT_BATCH = 64  # connections taken per wake-up, so reading pending ones is never starved
KEEP_EVERY = 1.0  # seconds between two looks at the endpoint's file (`keep`)


def default_max_pending() -> int:
    """512, or a quarter of the open-file limit where that is lower (macOS defaults to 256);
    256 on Windows, whose select() takes at most 512 sockets."""
    if os.name == "nt":
        return 256
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return max(16, min(512, soft // 4)) if soft > 0 else 512
    except (ImportError, ValueError, OSError):
        return 512


class _Pending:
    __slots__ = ("conn", "deadline", "buffer", "authed", "peer", "drained", "draining")

    def __init__(self, conn: socket.socket, deadline: float, authed: bool, peer: Any) -> None:
        self.conn, self.deadline, self.authed, self.peer = conn, deadline, authed, peer
        self.buffer = bytearray()
        self.drained = 0
        self.draining = False


def send_quietly(conn: socket.socket, frame: bytes) -> None:
    """Best effort, never blocks: a client that already left is no one's problem."""
    try:
        conn.send(frame)
    except OSError:
        pass


class Acceptor:
    def __init__(self, listener: socket.socket, auth: str | None,
                 dispatch: Callable[[socket.socket, bytes, Any], None],
                 report: Callable[[BaseException], None], max_pending: int | None = None,
                 keep: Callable[[], tuple[socket.socket, str | None] | None] | None = None) -> None:
        listener.setblocking(False)
        self._listener = listener
        self._unix = listener.family == getattr(socket, "AF_UNIX", None)
        self._auth = auth.encode("ascii") if auth else None
        self._dispatch = dispatch
        self._report = report
        self.max_pending = max_pending or default_max_pending()
        self._pending: dict[socket.socket, _Pending] = {}  # insertion order: oldest first
        self._next_expiry = 0.0
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._stopped = False
        # Looks at the endpoint's file now and then; returns a listener (and secret) to take
        # over when the file had to be made again (see IpcServerActor._keep_endpoint).
        self._keep = keep
        self._next_keep = time.monotonic() + KEEP_EVERY
        self.counts = {"accepted": 0, "evicted": 0, "expired": 0, "refused": 0}

    @property
    def pending(self) -> int:
        return len(self._pending)

    def stop(self) -> None:
        self._stopped = True
        send_quietly(self._wake_w, b"x")

    # -- the loop (run by the supervisor: if it ever raises, it is restarted and carries on
    #    with the same pending connections) -------------------------------------------------

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        try:
            selector.register(self._listener, selectors.EVENT_READ, "listener")
            selector.register(self._wake_r, selectors.EVENT_READ, "wake")
            for conn in self._pending:
                selector.register(conn, selectors.EVENT_READ, "conn")
            while not self._stopped:
                timeout = max(0.0, min(1.0, self._next_expiry - time.monotonic()))
                for key, _ in selector.select(timeout):
                    if key.data == "listener":
                        self._accept(selector)
                    elif key.data == "wake":
                        self._drain_wake()
                    elif key.fileobj in self._pending:
                        self._guarded(self._read, selector, key.fileobj)
                if time.monotonic() >= self._next_expiry:
                    self._expire(selector)
                if self._keep is not None and time.monotonic() >= self._next_keep:
                    self._next_keep = time.monotonic() + KEEP_EVERY
                    self._renew(selector)
        finally:
            selector.close()
            if self._stopped:
                for conn in list(self._pending):
                    conn.close()
                self._pending.clear()
                for sock in (self._wake_r, self._wake_w):
                    sock.close()

    def _renew(self, selector: selectors.BaseSelector) -> None:
        """A listener made again for a removed endpoint file takes over from the old one."""
        made = self._keep() if self._keep is not None else None
        if made is None:
            return
        listener, auth = made
        if listener is not self._listener:
            selector.unregister(self._listener)
            self._listener.close()
            listener.setblocking(False)
            self._listener = listener
            selector.register(listener, selectors.EVENT_READ, "listener")
        self._auth = auth.encode("ascii") if auth else None

    def _drain_wake(self) -> None:
        try:
            self._wake_r.recv(4096)
        except OSError:
            pass

    def _guarded(self, step: Callable[..., None], selector: selectors.BaseSelector, conn: socket.socket) -> None:
        """One connection's trouble stays its own: closed, reported once, the loop goes on."""
        try:
            step(selector, conn)
        except Exception as exc:  # noqa: BLE001 - never let one client stop the accept loop
            self._forget(selector, conn)
            conn.close()
            self._report(exc)

    def _forget(self, selector: selectors.BaseSelector, conn: socket.socket) -> _Pending | None:
        pending = self._pending.pop(conn, None)
        if pending is not None:
            try:
                selector.unregister(conn)
            except (KeyError, ValueError):
                pass
        return pending

    # -- accepting -------------------------------------------------------------------------

    def _accept(self, selector: selectors.BaseSelector) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _addr = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self._evict_oldest(selector)  # out of descriptors: make room, then breathe
                    time.sleep(0.01)
                return  # ECONNABORTED and friends: that client is gone; the rest wait for the next round
            self.counts["accepted"] += 1
            self._guarded(self._admit, selector, conn)

    def _admit(self, selector: selectors.BaseSelector, conn: socket.socket) -> None:
        conn.setblocking(False)
        peer = peer_of(conn) if self._unix else None
        if peer is not None and hasattr(os, "getuid") and peer.uid != os.getuid():
            self.counts["refused"] += 1
            send_quietly(conn, ipc.error_frame("", ipc.REFUSED, f"refused: this host belongs to uid {os.getuid()}; "
                                                                f"the caller runs as uid {peer.uid}"))
            conn.close()
            return
        while len(self._pending) >= self.max_pending:
            self._evict_oldest(selector)
        deadline = time.monotonic() + REQUEST_DEADLINE
        self._pending[conn] = _Pending(conn, deadline, self._auth is None, peer)
        selector.register(conn, selectors.EVENT_READ, "conn")
        self._next_expiry = min(self._next_expiry, deadline)

    def _evict_oldest(self, selector: selectors.BaseSelector) -> None:
        oldest = next(iter(self._pending), None)
        if oldest is None:
            return
        self._forget(selector, oldest)
        self.counts["evicted"] += 1
        send_quietly(oldest, ipc.error_frame("", ipc.BUSY, "host is busy: too many connections are waiting to "
                                                          "send their request; try again"))
        oldest.close()

    # -- reading ---------------------------------------------------------------------------

    def _read(self, selector: selectors.BaseSelector, conn: socket.socket) -> None:
        pending = self._pending[conn]
        try:
            data = conn.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if pending.draining:
            pending.drained += len(data)
            if not data or pending.drained > DRAIN_LIMIT:
                self._close(selector, conn)
            return
        if not data:  # the client is done sending
            if pending.authed and pending.buffer.strip():
                self._hand_off(selector, conn, bytes(pending.buffer))  # no newline: take what came
            elif pending.buffer:
                self._answer(selector, pending, ipc.REFUSED, ipc.AUTH_REFUSAL)
            else:
                self._close(selector, conn)  # connected and left without a word
            return
        if not pending.authed:
            data = self._authenticate(selector, pending, data)
            if not pending.authed or pending.draining:
                return
        newline = data.find(b"\n")
        if newline >= 0:
            self._hand_off(selector, conn, bytes(pending.buffer) + data[:newline])
            return
        pending.buffer += data
        if len(pending.buffer) > ipc.MAX_REQUEST:
            self._answer(selector, pending, ipc.BAD_REQUEST,
                         f"request exceeds the {ipc.MAX_REQUEST}-byte limit; put large text in a file")

    def _authenticate(self, selector: selectors.BaseSelector, pending: _Pending, data: bytes) -> bytes:
        """Consume the `AUTH <secret>` line; returns what followed it."""
        pending.buffer += data
        good, used = ipc.read_auth(bytes(pending.buffer), self._auth or b"")
        if good is None:
            return b""
        if not good:
            self._answer(selector, pending, ipc.REFUSED, ipc.AUTH_REFUSAL)
            return b""
        rest = bytes(pending.buffer[used:])
        pending.buffer.clear()
        pending.authed = True
        return rest

    def _hand_off(self, selector: selectors.BaseSelector, conn: socket.socket, line: bytes) -> None:
        pending = self._forget(selector, conn)
        self._dispatch(conn, line, pending.peer if pending else None)

    def _answer(self, selector: selectors.BaseSelector, pending: _Pending, code: str, message: str) -> None:
        """Reply with an error, then drain what the client still sends (so it can read the
        reply: closing on unread data resets a TCP connection) for a short while."""
        send_quietly(pending.conn, ipc.error_frame("", code, message))
        try:
            pending.conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        pending.draining = True
        pending.buffer = bytearray()
        pending.deadline = time.monotonic() + DRAIN_TIME
        self._next_expiry = min(self._next_expiry, pending.deadline)

    def _close(self, selector: selectors.BaseSelector, conn: socket.socket) -> None:
        self._forget(selector, conn)
        conn.close()

    def _expire(self, selector: selectors.BaseSelector) -> None:
        now = time.monotonic()
        upcoming = now + 1.0
        for pending in list(self._pending.values()):
            if pending.deadline > now:
                upcoming = min(upcoming, pending.deadline)
                continue
            if pending.draining:
                self._close(selector, pending.conn)
                continue
            self.counts["expired"] += 1
            self._answer(selector, pending, ipc.BAD_REQUEST,
                         f"no complete request within {REQUEST_DEADLINE:g} s; send one JSON line per connection")
            upcoming = min(upcoming, pending.deadline)
        self._next_expiry = upcoming
