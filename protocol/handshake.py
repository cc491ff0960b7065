"""The identity-first handshake with peer AIs, as a pure state machine (time is passed in).

Per peer tab, keyed by its name (renames move the state):
    not_connected --first send--> handshake_sent --verified ack--> connected
    handshake_sent --no ack within ack_timeout--> not_connected (the next send re-introduces)
A reset of the AI session puts every peer back to not_connected.
"""

from __future__ import annotations

from dataclasses import dataclass

NOT_CONNECTED, HANDSHAKE_SENT, CONNECTED = "not_connected", "handshake_sent", "connected"
HANDSHAKE_OK = "handshake-ok"  # the word the first-contact header asks a peer to acknowledge with
ACKS = frozenset({HANDSHAKE_OK, "ok", "ready", "ack"})


def _word(text: str) -> str:
    return text.strip().strip(".!").casefold()


def is_ack(text: str) -> bool:
    return _word(text) in ACKS


def is_handshake_ok(text: str) -> bool:
    """The header's own acknowledgement: from a peer already connected it acknowledges a header
    again (one a model pasted into its tab), and answers no question."""
    return _word(text) == HANDSHAKE_OK


@dataclass
class _Peer:
    name: str
    state: str = NOT_CONNECTED
    sent_at: float = 0.0


class Handshakes:
    def __init__(self, ack_timeout: float = 120.0) -> None:
        self.ack_timeout = ack_timeout
        self._peers: dict[str, _Peer] = {}

    def _peer(self, name: str) -> _Peer:
        return self._peers.setdefault(name.casefold(), _Peer(name))

    def state(self, name: str) -> str:
        peer = self._peers.get(name.casefold())
        return peer.state if peer else NOT_CONNECTED

    def on_send(self, name: str, now: float) -> bool:
        """A send to this peer is about to happen; True if it must carry the header."""
        peer = self._peer(name)
        if peer.state == NOT_CONNECTED:
            peer.state, peer.sent_at = HANDSHAKE_SENT, now
            return True
        return False

    def on_ack(self, name: str) -> bool:
        """A verified ack; True if the state changed."""
        peer = self._peer(name)
        changed = peer.state != CONNECTED
        peer.state = CONNECTED
        return changed

    def expire(self, now: float) -> list[str]:
        """Peers whose ack did not come in time, now back to not_connected."""
        expired = []
        for peer in self._peers.values():
            if peer.state == HANDSHAKE_SENT and now - peer.sent_at >= self.ack_timeout:
                peer.state = NOT_CONNECTED
                expired.append(peer.name)
        return expired

    def rename(self, old: str, new: str) -> None:
        peer = self._peers.pop(old.casefold(), None)
        if peer is not None:
            peer.name = new
            self._peers[new.casefold()] = peer

    def forget(self, name: str) -> None:
        self._peers.pop(name.casefold(), None)

    def reset(self) -> None:
        for peer in self._peers.values():
            peer.state = NOT_CONNECTED


def render_header(template: str, *, name: str, text: str) -> str:
    """The first-contact message: the header from `assets/handshake.md`, then the text."""
    lines = [line.strip() for line in template.splitlines() if line.strip() and not line.startswith("#")]
    header = " ".join(lines).replace("{name}", name)
    return f"{header} Message: {text}"
