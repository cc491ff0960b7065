"""Wiring the bot into a host: the service, its handshake timer, and the coordinator's send
filter (the first-contact header) and reset hook. (`tiki status` shows the peers through the
coordinator's status.)"""

from __future__ import annotations

import time
from typing import Any

import pykka

from .bot import BotActor, PeerBook
from ...protocol.limits import ASK



def start(host: Any) -> None:
    book = PeerBook(host.settings.peers.ack_timeout)  # outlives a restarted bot actor
    host.add_service("bot", host.supervisor.actor("peers", lambda: BotActor.start(host, host.settings.peers, book)))
    host.supervisor.thread("peers.timer", _expire_handshakes, host)
    reactor = host.service("reactor")
    if reactor is None:
        return

    def send_filter(tab: str, role: str, text: str) -> str:
        # Runs on the reactor's worker thread; only peer tabs ever get a header.
        if role != "peer":
            return text
        return host.service("bot").prepare_send(tab, text).get(timeout=ASK)

    reactor.set_send_filter(send_filter).get(timeout=ASK)
    reactor.add_reset_hook(lambda: host.service("bot").reset()).get(timeout=ASK)


def _expire_handshakes(host: Any) -> None:
    """Once a second, peers whose ack is overdue go back to not_connected."""
    while not host.supervisor.stopping and not host.stopped:
        time.sleep(1.0)
        try:
            host.service("bot").expire_handshakes(time.monotonic())
        except pykka.ActorDeadError:
            continue  # being restarted; the next tick reaches the new one
