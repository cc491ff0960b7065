"""What a request handler gets besides its arguments: the host, a way to stream events, the
verified caller, and whether the client is still there.

Who is calling: on a Unix socket under Linux the kernel says (see `peer_identity`): a caller
inside tab A is tab A whatever token it shows, and a caller outside every tab is outside even
with a copied token. Where the kernel cannot say (TCP endpoints, Windows, macOS) the tab's
TIKI_TAB_TOKEN is the check. `verified_by` records which check it was ("pty" | "token" | None).
"""

from __future__ import annotations

import select
import socket
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from .identity import Peer

LOOKUP_TIMEOUT = 5.0
_HUP_APART = sys.platform.startswith("linux")  # POLLHUP means both directions are closed


@dataclass
class OpContext:
    host: Any
    token: str | None
    emit: Callable[[dict[str, Any]], None]
    request_id: str
    after_reply: list[Callable[[], None]] = field(default_factory=list)
    """Callbacks run once the final reply has been sent (e.g. shutting the host down)."""
    peer: Peer | None = None
    conn: socket.socket | None = None
    _identity: tuple[dict[str, Any] | None, str | None, bool] | None = None
    _gone: bool = False
    _half_closed: bool = False

    # -- the caller ------------------------------------------------------------------------

    def _resolve(self) -> tuple[dict[str, Any] | None, str | None, bool]:
        if self._identity is None:
            workspace = self.host.workspace
            peer = self.peer
            if peer is not None and peer.ttys is not None:
                caller, how = workspace.caller_for_terminals(list(peer.ttys), self.token).get(timeout=LOOKUP_TIMEOUT)
                # outside every tab: a token alone (readable from /proc/PID/environ) proves nothing
                self._identity = (caller, how, caller is None and bool(self.token))
            elif self.token:
                caller = workspace.caller_for_token(self.token).get(timeout=LOOKUP_TIMEOUT)
                self._identity = (caller, "token" if caller else None, False)
            else:
                self._identity = (None, None, False)
        return self._identity

    @property
    def caller(self) -> dict[str, Any] | None:
        """The tab the request verifiably comes from: {"name", "former_names"}, or None."""
        return self._resolve()[0]

    @property
    def caller_tab(self) -> str | None:
        caller = self.caller
        return caller["name"] if caller else None

    @property
    def verified_by(self) -> str | None:
        """"pty" (peer credentials), "token" (TIKI_TAB_TOKEN), or None (not verified)."""
        return self._resolve()[1]

    @property
    def token_ignored(self) -> bool:
        """A tab token came from a process the kernel places outside every tab."""
        return self._resolve()[2]

    # -- the connection --------------------------------------------------------------------

    def client_gone(self) -> bool:
        """Has the client hung up? Cheap (one poll); long handlers call it while they wait.
        Anything the client sends after its request is read and dropped (one request per
        connection). On Linux a Unix socket reports a full hang-up (POLLHUP) apart from a
        half-close, so a client that shut down its writing side still gets its answer;
        elsewhere (TCP, macOS) end-of-input counts as gone (the tiki CLI never half-closes)."""
        conn = self.conn
        if self._gone or conn is None:
            return self._gone
        try:
            self._gone = self._poll_gone(conn)
        except (OSError, ValueError):
            self._gone = True
        return self._gone

    def _poll_gone(self, conn: socket.socket) -> bool:
        if not hasattr(select, "poll"):  # Windows
            return bool(select.select([conn], [], [], 0)[0]) and not conn.recv(4096)
        poller = select.poll()
        poller.register(conn, 0 if self._half_closed else select.POLLIN)  # HUP/ERR are always reported
        events = poller.poll(0)
        if not events:
            return False
        revents = events[0][1]
        if revents & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
            return True
        if revents & select.POLLIN and not conn.recv(4096):
            if _HUP_APART and conn.family == getattr(socket, "AF_UNIX", None):
                self._half_closed = True  # it may still read: wait for POLLHUP
                return False
            return True
        return False
