"""The bot: live handshake state of the peer tabs and the routing of their bot-chat messages.

- A verified ack (`handshake-ok`, `ok`, `ready`, `ack`) from a peer in `handshake_sent` moves
  it to `connected`; from any other peer the same words are an ordinary message.
- While the coordinator is in a run, a peer's message goes to the run (a pending `wait`
  wakes at once; other tools carry it in their result). Nothing is dropped.
- While idle, a verified message from a peer the coordinator talked to this session starts a
  continuation run; from anyone else it is shown and logged only.
- At most `continuations_per_minute` continuation runs per peer per minute; beyond that the
  message is logged with a note and left to the user (AI-to-AI loop safety).
- A continuation run is one generation further from the user's request than the run whose send
  the peer answers; at most `CHAIN_MAX` generations run. A later reply is shown and logged
  with a note, not run: two peers answering each other's sends would otherwise restart the
  coordinator forever (a run lasts longer than the per-minute cap can see).
- A send that typed nothing (`send_failed`) undoes what `prepare_send` recorded, so the next
  real send still introduces the peer; a restarted tab runs a fresh program that was never
  introduced, so its handshake starts over.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pykka

from ...protocol.handshake import HANDSHAKE_SENT, NOT_CONNECTED, Handshakes, is_ack, render_header
from ...protocol.limits import ASK
from ...protocol.settings import PeerSettings
from ..coordinator.events import RunStarted
from ..events import BotChat, PeerNote, PeerStateChanged, TabRestarted, TabsChanged
from ..supervisor import SupervisedActor

CHAIN_MAX = 2  # continuation runs started, one from another, after the user's own request


@dataclass
class PeerBook:
    """The peers' state, kept outside the actor so that a restarted bot remembers it."""

    ack_timeout: float
    handshakes: Handshakes = None  # type: ignore[assignment]
    names: dict[int, str] = field(default_factory=dict)  # tab id -> name, to follow renames
    roles: dict[str, str] = field(default_factory=dict)  # casefolded name -> role
    talked_to: set[str] = field(default_factory=set)
    continuations: dict[str, deque[float]] = field(default_factory=dict)
    run_depth: int = 0  # generation of the run in progress: 0 the user's, 1 its continuation, ...
    started: dict[str, int] = field(default_factory=dict)  # run id -> generation, for runs we submitted
    sent_depth: dict[str, int] = field(default_factory=dict)  # casefolded peer -> generation that last sent to it
    undo: dict[str, tuple[bool, bool, int | None]] = field(default_factory=dict)  # see prepare_send

    def __post_init__(self) -> None:
        if self.handshakes is None:
            self.handshakes = Handshakes(self.ack_timeout)


def header_template() -> str:
    return resources.files("tikitaka.assets").joinpath("handshake.md").read_text(encoding="utf-8")


class BotActor(SupervisedActor):
    def __init__(self, host: Any, settings: PeerSettings, book: PeerBook | None = None) -> None:
        super().__init__()
        self._host = host
        self._settings = settings
        self._book = book or PeerBook(settings.ack_timeout)
        self._handshakes = self._book.handshakes
        self._template = header_template()
        self._unsubscribe = lambda: None

    # The book's fields under the names the routing code reads best with.
    _names = property(lambda self: self._book.names)
    _roles = property(lambda self: self._book.roles)
    _talked_to = property(lambda self: self._book.talked_to)
    _continuations = property(lambda self: self._book.continuations)

    def on_start(self) -> None:
        self._unsubscribe = self._host.bus.subscribe(self._on_event)
        self._tabs_changed(self._host.workspace.list_tabs().get(timeout=ASK))

    def on_stop(self) -> None:
        self._unsubscribe()

    def on_failure(self, exception_type: Any, exception_value: Any, tb: Any) -> None:
        self._unsubscribe()  # the restarted actor subscribes again
        super().on_failure(exception_type, exception_value, tb)

    def _on_event(self, event: object) -> None:
        # Called on other actors' threads: only hand the event to our mailbox.
        if isinstance(event, (BotChat, TabsChanged, TabRestarted, RunStarted)):
            try:
                self.actor_ref.tell(event)
            except pykka.ActorDeadError:
                pass

    def on_receive(self, message: Any) -> None:
        if isinstance(message, BotChat):
            self._bot_chat(message)
        elif isinstance(message, TabsChanged):
            self._tabs_changed(message.tabs)
        elif isinstance(message, TabRestarted):
            self._restarted(message.name)
        elif isinstance(message, RunStarted):
            # Published before the run's first send, so its sends (prepare_send) come after it here.
            self._book.run_depth = self._book.started.pop(message.run_id, 0)

    # -- state -----------------------------------------------------------------------------

    def _publish_state(self, name: str, note: str = "") -> None:
        self._host.bus.publish(PeerStateChanged(name, self._handshakes.state(name), note))

    def _tabs_changed(self, tabs: list[Any]) -> None:
        current = {tab.id: tab.name for tab in tabs}
        for tab_id, old in list(self._names.items()):
            new = current.get(tab_id)
            if new is None:
                self._handshakes.forget(old)
                self._talked_to.discard(old.casefold())
            elif new != old:
                self._handshakes.rename(old, new)
                if old.casefold() in self._book.sent_depth:
                    self._book.sent_depth[new.casefold()] = self._book.sent_depth.pop(old.casefold())
                if old.casefold() in self._talked_to:
                    self._talked_to.discard(old.casefold())
                    self._talked_to.add(new.casefold())
                self._publish_state(new)
        self._book.names = current
        self._book.roles = {tab.name.casefold(): tab.role for tab in tabs}

    def _restarted(self, name: str) -> None:
        """A fresh process in the tab: whatever the old one acknowledged, this one never read."""
        if self._handshakes.state(name) != NOT_CONNECTED:
            self._handshakes.forget(name)
            self._host.event_log.append("handshake_reset", tab=name, detail="tab restarted; the next send introduces it")
            self._publish_state(name, "restarted: the next message introduces tikitaka again")

    def expire_handshakes(self, now: float) -> list[str]:
        expired = self._handshakes.expire(now)
        for name in expired:
            self._host.event_log.append("handshake_timeout", tab=name,
                                        detail=f"no ack within {self._settings.ack_timeout:g} s; the next send re-introduces")
            self._publish_state(name, "no acknowledgement: the next message re-introduces tikitaka")
        return expired

    def states(self) -> dict[str, dict[str, str]]:
        return {name: {"handshake": self._handshakes.state(name)}
                for name in self._names.values() if self._roles.get(name.casefold()) == "peer"}

    def prepare_send(self, tab: str, text: str) -> str:
        """The text to type into peer tab `tab`: with the first-contact header if it is due.
        What this records is undone by `send_failed` if the send then types nothing."""
        key = tab.casefold()
        first_talk = key not in self._talked_to
        self._talked_to.add(key)
        depth = self._book.sent_depth.get(key)
        self._book.sent_depth[key] = self._book.run_depth
        introduced = self._handshakes.on_send(tab, time.monotonic())
        self._book.undo[key] = (introduced, first_talk, depth)
        if introduced:
            self._publish_state(tab)
            return render_header(self._template, name=tab, text=text)
        return text

    def send_failed(self, tab: str) -> None:
        """The send `prepare_send` prepared typed nothing (refused, tab exited, gone): the peer
        was not introduced, nor talked to, by it."""
        undo = self._book.undo.pop(tab.casefold(), None)
        if undo is None:
            return
        introduced, first_talk, depth = undo
        if first_talk:
            self._talked_to.discard(tab.casefold())
        if depth is None:
            self._book.sent_depth.pop(tab.casefold(), None)
        else:
            self._book.sent_depth[tab.casefold()] = depth
        if introduced and self._handshakes.state(tab) == HANDSHAKE_SENT:
            self._handshakes.forget(tab)  # forgotten is not_connected: the next send introduces it
            self._publish_state(tab)

    def reset(self) -> None:
        """A new AI session: every peer is a stranger again."""
        self._handshakes.reset()
        self._talked_to.clear()
        self._book.sent_depth.clear()
        for name in self.states():
            self._publish_state(name)

    # -- routing ---------------------------------------------------------------------------

    def _bot_chat(self, message: BotChat) -> None:
        sender = message.sender
        is_peer = self._roles.get(sender.casefold()) == "peer"
        # Only a peer that was just introduced acknowledges; from a connected peer "ok" or
        # "ready" is an answer like any other and must reach the coordinator.
        introduced = self._handshakes.state(sender) == HANDSHAKE_SENT
        if message.verified and is_peer and introduced and is_ack(message.text):
            if self._handshakes.on_ack(sender):
                self._host.event_log.append("handshake_ok", tab=sender)
                self._publish_state(sender)
            return
        coordinator = self._host.service("coordinator")
        if coordinator is None:
            return
        if coordinator.is_running().get(timeout=ASK):
            coordinator.peer_message(sender, message.text, message.verified)
            return
        if not (message.verified and sender.casefold() in self._talked_to):
            return  # shown (the UI saw the BotChat) and logged by the host; not a continuation
        depth = self._book.sent_depth.get(sender.casefold(), 0) + 1
        if depth > CHAIN_MAX:
            note = (f"not started: {CHAIN_MAX} continuation runs already followed your request, one from "
                    f"another; {sender}'s reply is shown here only -- answer it yourself or ask the coordinator")
            self._host.event_log.append("continuation_chain_ended", tab=sender, detail=note)
            self._host.bus.publish(PeerNote(sender, message.text, note))
            return
        if not self._allow_continuation(sender):
            note = (f"not started: more than {self._settings.continuations_per_minute} continuation runs "
                    f"from {sender} in a minute; answer it yourself or ask the coordinator")
            self._host.event_log.append("continuation_capped", tab=sender, detail=note)
            self._host.bus.publish(PeerNote(sender, message.text, note))
            return
        run_id = coordinator.submit(f"[peer signal from {sender} via bot-chat] {message.text}",
                                    source=f"peer:{sender}").get(timeout=ASK)
        self._book.started[run_id] = depth  # its RunStarted, handled after this, sets run_depth

    def _allow_continuation(self, sender: str) -> bool:
        window = self._continuations.setdefault(sender.casefold(), deque())
        now = time.monotonic()
        while window and now - window[0] > 60:
            window.popleft()
        if len(window) >= self._settings.continuations_per_minute:
            return False
        window.append(now)
        return True


__all__ = ["BotActor", "PeerBook", "NOT_CONNECTED", "HANDSHAKE_SENT"]
