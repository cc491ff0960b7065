"""Carrying out the coordinator's actions against the workspace, in the reactor's worker.

Every outcome is a single-level JSON result the model can act on; failures are results too
(`{"ok": false, "error": "no tab named 'Claud'; tabs are: Claude, sh"}`), never exceptions
that end the run. Typing into a shell tab needs the user's consent (see `Consent`).
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any, Callable

import pykka

from ..protocol.toolcall import Action
from .tabs import keyboard
from .errors import TikiError
from .reactor_events import ConsentNeeded
from ..protocol.limits import ASK

CONSENT_TIMEOUT = 300.0

SendFilter = Callable[[str, str, str], str]  # (tab name, role, text) -> text to type


class PeerInbox:
    """Peer messages that arrive while a run is active; a pending `wait` wakes at once."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._messages: list[dict[str, Any]] = []

    def put(self, sender: str, text: str, verified: bool) -> None:
        with self._cv:
            self._messages.append({"from": sender, "text": text, "verified": verified})
            self._cv.notify_all()

    def wake(self) -> None:
        with self._cv:
            self._cv.notify_all()

    def pending(self) -> int:
        with self._cv:
            return len(self._messages)

    def drain(self) -> list[dict[str, Any]]:
        with self._cv:
            messages, self._messages = self._messages, []
            return messages

    def wait(self, seconds: float, cancel: threading.Event) -> list[dict[str, Any]]:
        deadline = time.monotonic() + seconds
        with self._cv:
            while not self._messages and not cancel.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(left)
            messages, self._messages = self._messages, []
            return messages


class Consent:
    """Whether the coordinator may type into a shell tab: allowed per run or by config,
    remembered per tab ("always"), or asked of the user through the UI."""

    def __init__(self, bus: Any, allow_all: bool) -> None:
        self._bus = bus
        self._allow_all = allow_all
        self._always: set[str] = set()
        self._responder = False
        self._pending: dict[str, tuple[threading.Event, list[str]]] = {}
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
        request_id = uuid.uuid4().hex[:8]
        event, answer = threading.Event(), []
        with self._lock:
            self._pending[request_id] = (event, answer)
        self._bus.publish(ConsentNeeded(run_id, request_id, tab, tool, dict(args)))
        try:
            deadline = time.monotonic() + CONSENT_TIMEOUT
            while not event.wait(0.05):
                if cancel.is_set() or time.monotonic() > deadline:
                    return f"not done: the user did not allow typing into shell tab '{tab}'"
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
        decision = answer[0] if answer else "deny"
        if decision == "always":
            self._always.add(tab.casefold())
        if decision in ("once", "always"):
            return None
        return f"not done: the user denied typing into shell tab '{tab}'"


class ToolExecutor:
    def __init__(self, host: Any, consent: Consent, inbox: PeerInbox, send_filter: Callable[[], SendFilter]) -> None:
        self._host = host
        self._consent = consent
        self._inbox = inbox
        self._send_filter = send_filter

    def run(self, action: Action, *, run_id: str, allow_shell: bool, cancel: threading.Event) -> dict[str, Any]:
        try:
            result = getattr(self, f"_{action.tool}")(action.args, run_id, allow_shell, cancel)
        except TikiError as exc:
            result = {"ok": False, "error": exc.message}
        except pykka.ActorDeadError:
            result = {"ok": False, "error": "that tab's terminal is gone; list_terminals to see the tabs"}
        except pykka.Timeout:
            result = {"ok": False, "error": "the tab did not answer in time"}
        except Exception as exc:  # noqa: BLE001 - errors are results the model can act on
            result = {"ok": False, "error": f"{action.tool} failed: {exc}"}
        if action.tool != "wait":
            messages = self._inbox.drain()
            if messages:
                result["peer_messages"] = messages
        return result

    def _handle(self, tab: str) -> Any:
        return self._host.workspace.get(tab).get(timeout=ASK)

    def _list_terminals(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        tabs = self._host.workspace.list_tabs().get(timeout=ASK)
        bot = self._host.service("bot")
        states = bot.states().get(timeout=ASK) if bot is not None else {}
        rows = []
        for tab in tabs:
            row = {"name": tab.name, "command": " ".join(tab.command), "role": tab.role,
                   "state": "running" if tab.running else f"exited ({tab.exit_code})",
                   "activity": tab.activity}
            if tab.role == "peer":
                row["handshake"] = states.get(tab.name, {}).get("handshake", "not_connected")
            rows.append(row)
        return {"ok": True, "terminals": rows}

    def _read_terminal(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        handle = self._handle(args["tab"])
        read = handle.terminal.read_text(args["lines"]).get(timeout=ASK)
        return {"ok": True, "tab": handle.name, "text": read["text"], "cursor": read["cursor"],
                "title": read["title"], "alt_screen": read["alt_screen"]}

    def _send_to_terminal(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        handle = self._handle(args["tab"])
        text = args["text"]
        if handle.role == "shell":
            refusal = self._consent.check(run_id, handle.name, "send_to_terminal", args, allow_shell, cancel)
            if refusal:
                return {"ok": False, "error": refusal}
        filtered = self._send_filter()(handle.name, handle.role, text)
        # A shell runs what it is given: it gets exactly what the model wrote, nothing added
        # by a filter (peer text, headers). Peer tabs get the first-contact header this way.
        if handle.role != "shell":
            text = filtered
        sent = keyboard.send_text(handle.terminal, text)
        return {"ok": True, "tab": handle.name, "screen_changed": sent["changed"]}

    def _send_key(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        handle = self._handle(args["tab"])
        if handle.role == "shell":
            refusal = self._consent.check(run_id, handle.name, "send_key", args, allow_shell, cancel)
            if refusal:
                return {"ok": False, "error": refusal}
        handle.terminal.key(args["key"]).get(timeout=ASK)
        return {"ok": True, "tab": handle.name, "key": args["key"]}

    def _wait(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        start = time.monotonic()
        messages = self._inbox.wait(args["seconds"], cancel)
        result: dict[str, Any] = {"ok": True, "waited": round(time.monotonic() - start, 2)}
        if messages:
            result["peer_messages"] = messages
        return result
