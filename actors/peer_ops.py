"""Wiring the bot into a host: the service, the reactor's send filter (first-contact header)
and reset hook, and the `peer.states` op."""

from __future__ import annotations

from typing import Any

from .bot import BotActor

ASK = 10.0


def register(host: Any) -> None:
    bot = BotActor.start(host, host.settings.peers).proxy()
    host.add_service("bot", bot)
    host.register_op("peer.states", lambda ctx, args: {"peers": bot.states().get(timeout=ASK)})
    reactor = host.service("reactor")
    if reactor is None:
        return

    def send_filter(tab: str, role: str, text: str) -> str:
        # Runs on the reactor's worker thread; only peer tabs ever get a header.
        if role != "peer":
            return text
        return bot.prepare_send(tab, text).get(timeout=ASK)

    reactor.set_send_filter(send_filter).get(timeout=ASK)
    reactor.add_reset_hook(lambda: bot.reset()).get(timeout=ASK)
