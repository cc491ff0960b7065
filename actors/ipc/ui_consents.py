"""The coordinator's consent questions while UIs are attached: any attached UI may answer.

The coordinator is told whether anyone can answer (`responder`): with a UI attached it asks
before typing into a shell tab; when the last one leaves, the questions still open are denied
(and new ones are, unless allow_shell). Open questions are kept for UIs that attach later, and
each one's end -- answered by a UI, or its run moved on (timed out, cancelled) -- is said to
every UI (`consent_closed`), so no UI keeps asking what is settled.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import pykka

from ..coordinator.events import FINAL, ConsentNeeded, ToolEnd
from .ui_frames import wire_event


class Consents:
    def __init__(self, host: Any, broadcast: Callable[[dict[str, Any]], None], lock: threading.RLock) -> None:
        self._host = host
        self._broadcast = broadcast
        self._lock = lock  # the hub's: a UI attaching gets the open questions as of its hello
        self._open: dict[str, dict[str, Any]] = {}  # request id -> the question as sent

    def questions(self) -> list[dict[str, Any]]:
        """The open questions (under the hub's lock), for a UI's hello."""
        return list(self._open.values())

    def responder(self, present: bool) -> None:
        coordinator = self._host.service("coordinator")
        try:
            if coordinator is not None:
                coordinator.set_consent_responder(present)
        except pykka.ActorDeadError:
            pass  # stopping, or being restarted: the next poll says it again

    def answer(self, request_id: str, decision: str) -> None:
        coordinator = self._host.service("coordinator")
        try:
            if coordinator is not None:
                coordinator.answer_consent(request_id, decision)
        except pykka.ActorDeadError:
            pass  # its run ended with it
        with self._lock:
            known = self._open.pop(request_id, None) is not None
        if known:
            self._broadcast({"kind": "consent_closed", "request_id": request_id, "decision": decision})

    def nobody_left(self) -> None:
        """The last UI left: nobody can answer, so what is open is denied."""
        self.responder(False)
        with self._lock:
            open_questions = list(self._open)
        for request_id in open_questions:
            self.answer(request_id, "deny")

    def on_event(self, event: object) -> None:
        """Keep a new question; close those of a run whose tool call ended or that ended."""
        if isinstance(event, ConsentNeeded):
            with self._lock:
                self._open[event.request_id] = wire_event(event) or {}
        elif isinstance(event, (ToolEnd, *FINAL)):
            for request_id, question in list(self._open.items()):
                if question.get("run_id") == event.run_id:  # answered, timed out or cancelled
                    with self._lock:
                        self._open.pop(request_id, None)
                    self._broadcast({"kind": "consent_closed", "request_id": request_id, "decision": None})
