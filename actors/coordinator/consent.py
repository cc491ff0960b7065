"""Whether the coordinator may type into a shell tab: a small model, or text a peer wrote,
must not run commands unasked. What the user denied is not asked again in the same run: a
small model denied once asks for the very same thing again (the repeat guard lets three
identical calls through), and the user had to say no each time."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

from .events import ConsentNeeded


class Consent:
    """Whether the coordinator may type into a shell tab: allowed per run or by config,
    remembered per tab ("always"), or asked of the user through the UI."""

    def __init__(self, bus: Any, allow_all: bool, timeout: float) -> None:
        self._bus = bus
        self._allow_all = allow_all
        self._timeout = timeout  # seconds a question waits for its answer (then: no)
        self._always: set[str] = set()
        self._responder = False
        self._pending: dict[str, tuple[threading.Event, list[str]]] = {}
        self._denied: tuple[str, set[str]] = ("", set())  # (run id, the requests denied in it)
        self._lock = threading.Lock()

    def set_responder(self, present: bool) -> None:
        self._responder = present

    def answer(self, request_id: str, decision: str) -> bool:
        with self._lock:
            entry = self._pending.get(request_id)
        if entry is None:
            return False
        entry[1].append(decision)
        entry[0].set()
        return True

    def wake_all(self) -> None:
        with self._lock:
            for event, _ in self._pending.values():
                event.set()

    def check(self, run_id: str, tab: str, tool: str, args: dict[str, Any], allow_shell: bool,
              cancel: threading.Event) -> str | None:
        """None when allowed, else the reason it was not."""
        if allow_shell or self._allow_all or tab.casefold() in self._always:
            return None
        if not self._responder:
            return (f"not done: '{tab}' is a shell tab and typing there needs the user's consent "
                    "(headless: `tiki ask --allow-shell`, or allow_shell = true in config.toml)")
        request = json.dumps([tab.casefold(), tool, args], sort_keys=True, default=str)
        if self._denied[0] == run_id and request in self._denied[1]:
            return (f"not done: the user already denied this in shell tab '{tab}' (not asked again); "
                    "do something else, or call done and say what you could not do")
        request_id = uuid.uuid4().hex[:8]
        event, answer = threading.Event(), list[str]()
        with self._lock:
            self._pending[request_id] = (event, answer)
        self._bus.publish(ConsentNeeded(run_id, request_id, tab, tool, dict(args)))
        try:
            deadline = time.monotonic() + self._timeout
            while not event.wait(0.05):
                if cancel.is_set():
                    return f"not done: cancelled (no answer) before the user decided about typing into shell tab '{tab}'"
                if time.monotonic() > deadline:
                    return f"not done: the user did not answer within {self._timeout:g} s about typing into shell tab '{tab}'"
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
        if not answer:  # woken without an answer: the run was cancelled or the UI left; nobody said no
            return f"not done: cancelled (no answer) before the user decided about typing into shell tab '{tab}'"
        decision = answer[0]
        if decision == "always":
            self._always.add(tab.casefold())
        if decision in ("once", "always"):
            return None
        with self._lock:
            if self._denied[0] != run_id:  # (runs take turns: the last one's are dropped)
                self._denied = (run_id, set())
            self._denied[1].add(request)
        return f"not done: the user denied typing into shell tab '{tab}'"
