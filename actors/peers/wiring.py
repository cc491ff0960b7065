"""Wiring the bot into a host: the service and its handshake timer. (The coordinator's side of
the peers, the first-contact header on its sends and forgetting the handshakes on reset, is
wired by `coordinator.ops`; `tiki status` shows the peers through the coordinator's status.)"""

from __future__ import annotations

import time
from typing import Any

import pykka

from .bot import BotActor, PeerBook


def start(host: Any) -> None:
    book = PeerBook(host.settings.peers.ack_timeout)  # outlives a restarted bot actor
    host.add_service("bot", host.supervisor.actor("peers", lambda: BotActor.start(host, host.settings.peers, book)))
    host.supervisor.thread("peers.timer", _expire_handshakes, host)


def _expire_handshakes(host: Any) -> None:
    """Once a second, peers whose ack is overdue go back to not_connected."""
    while not host.supervisor.stopping and not host.stopped:
        time.sleep(1.0)
        try:
            host.service("bot").expire_handshakes(time.monotonic())
        except pykka.ActorDeadError:
            continue  # being restarted; the next tick reaches the new one
