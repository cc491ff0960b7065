"""The coordinator's side of the tabs' agent states (issue 12): sends that wait for an agent to
be idle, and a `wait` that wakes when a tab starts waiting for its user.

- `send`: through the tab's outbox (actors/tabs/outbox). Into a working agent the text is
  queued; the tool waits up to `SEND_WAIT` s (a relay: its `relay_timeout`) for it to be typed
  (the run's cancel ends that at once), then says `delivery: delivered` (and how long it was
  queued) or `queued` (the host types it later; the model should `wait` for the answer). An
  agent waiting for its user raises `PeerWaiting`: the caller turns it into a result with the
  screen that shows the question.
- `wait`: wakes early for a peer message (as before) or when a tab enters `waiting`, with
  `{"tab": ..., "screen": ...}`, so the coordinator can tell the user what is being asked
  instead of waiting blindly. Each waiting spell is reported once (a tab that was already
  waiting when the wait began counts too, if it was never reported).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..events import AgentStateChanged
from ..tabs.outbox import PeerWaiting
from .inbox import PeerInbox
from .limits import ASK

SEND_WAIT = 30.0  # seconds send_to_terminal waits for a queued text to be typed before answering "queued"
SLICE = 0.1  # the wait looks for a tab that started waiting this often (the inbox wakes it for messages)


class PeerWatch:
    def __init__(self, host: Any) -> None:
        self._host = host
        self._told: set[tuple[int, float]] = set()  # (tab id, since) of waiting spells already reported

    def send(self, handle: Any, text: str, cancel: threading.Event, wait: float = SEND_WAIT) -> dict[str, Any]:
        outbox = handle.terminal.outbox().get(timeout=ASK)
        try:
            delivery = outbox.submit(text, name=handle.name)
        except PeerWaiting:
            self._told.add((handle.id, handle.terminal.agent().get(timeout=ASK).view.since))
            raise
        deadline = time.monotonic() + wait
        while not delivery.wait(0.1):
            if cancel.is_set() or time.monotonic() > deadline:
                return {"screen_changed": False, "delivery": "queued",
                        "note": f"{handle.name} is working: the text is queued and will be typed as soon as it "
                                "is idle; wait for its answer"}
        if delivery.error is not None:
            raise delivery.error
        result = delivery.summary()
        outcome: dict[str, Any] = {"screen_changed": bool(result.get("changed"))}
        if delivery.queued:
            # (to the hundredth: a relay tells the peer's answers to earlier messages, which came
            # while this one waited, from the reply to this one by it)
            outcome.update(delivery="delivered", queued_s=round(result["queued_ms"] / 1000, 2))
        if result.get("submitted") is False:
            outcome["note"] = f"{handle.name} did not show that it took the Enter; read_terminal to check"
        return outcome

    def wait(self, inbox: PeerInbox, seconds: float, cancel: threading.Event) -> tuple[list[dict[str, Any]], Any]:
        """(peer messages, the first tab found waiting for its user) after at most `seconds`."""
        signal = threading.Event()

        def on_event(event: object) -> None:  # on a tab's detector thread: note it, nothing more
            if isinstance(event, AgentStateChanged) and event.state == "waiting":
                signal.set()

        unsubscribe = self._host.bus.subscribe(on_event)
        try:
            waiting = self._waiting_now()
            deadline = time.monotonic() + seconds
            while waiting is None:
                left = deadline - time.monotonic()
                messages = inbox.wait(max(0.0, min(SLICE, left)), cancel)
                if messages:
                    return messages, None
                if signal.is_set():
                    signal.clear()
                    waiting = self._waiting_now()
                if cancel.is_set() or left <= SLICE:
                    break
            return inbox.drain(), waiting
        finally:
            unsubscribe()

    def _waiting_now(self) -> dict[str, str] | None:
        """A tab waiting for its user whose spell was not reported yet, with what its screen asks."""
        workspace = self._host.workspace
        for name in workspace.names().get(timeout=ASK):
            try:
                handle = workspace.get(name).get(timeout=ASK)
                view = handle.terminal.agent().get(timeout=ASK).view
            except Exception:  # noqa: BLE001 - a tab closed meanwhile: not waiting
                continue
            if view.state == "waiting" and (handle.id, view.since) not in self._told:
                self._told.add((handle.id, view.since))
                return {"tab": handle.name, "screen": view.excerpt()}
        return None
