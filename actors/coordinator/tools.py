"""Carrying out the coordinator's actions against the workspace, in the coordinator's worker.

Every outcome is a single-level JSON result the model can act on; failures are results too
(`{"ok": false, "error": "no tab named 'Claud'; tabs are: Claude, sh"}`), never exceptions
that end the run. Typing into a shell tab needs the user's consent (see `consent`).

A tab's agent state decides how a send goes (actors/tabs/outbox): into a working agent the text
is queued and typed when it is idle (the result says `delivery`: delivered, or still queued
after `SEND_WAIT` s); an agent waiting for its user refuses it, and the result carries
`peer_waiting` with the screen that shows what it asks, so the model can tell the user. A
`wait` wakes as soon as a peer tab enters `waiting` (see `agent_wait`).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

import pykka

from ...protocol.toolcall import Action
from ..errors import TikiError
from ..tabs.outbox import PeerWaiting
from .agent_wait import SEND_WAIT, PeerWatch
from .consent import Consent
from .inbox import PeerInbox
from .limits import ASK
from .results import Budget, mark_prompt

SendFilter = Callable[[str, str, str], str]  # (tab name, role, text) -> text to type


class ToolExecutor:
    def __init__(self, host: Any, consent: Consent, inbox: PeerInbox, send_filter: Callable[[], SendFilter]) -> None:
        self._host = host
        self._consent = consent
        self._inbox = inbox
        self._send_filter = send_filter
        self._budget: Budget | None = None
        self._send_wait = SEND_WAIT
        self._peers = PeerWatch(host)

    def run(self, action: Action, *, run_id: str, allow_shell: bool, cancel: threading.Event,
            budget: Budget | None = None, drain: bool = True, send_wait: float = SEND_WAIT) -> dict[str, Any]:
        """`action`'s result, with the peer messages that arrived meanwhile (`peer_messages`)
        unless not `drain` (a relay reads them from the inbox itself, by when they came). A
        send into a working agent waits up to `send_wait` s for its text to be typed."""
        self._budget, self._send_wait = budget, send_wait
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
        if action.tool != "wait" and drain:
            messages = self._inbox.drain()
            if messages:
                result["peer_messages"] = messages
        return budget.result(result) if budget is not None else result

    def _handle(self, tab: str) -> Any:
        return self._host.workspace.get(tab).get(timeout=ASK)

    def list_rows(self) -> list[dict[str, Any]]:
        return self._list_terminals({}, "", False, None)["terminals"]

    @staticmethod
    def overview(rows: list[dict[str, Any]]) -> str:
        """The tabs in one line, for the request: "which tabs are open" needs no tool."""
        return "; ".join(f"{r['name']} ({r['role']}: {r['command'] or '?'}, {r['state']}, "
                         f"{r['agent']['state'] if 'agent' in r else r['activity']}"
                         + (f", {r['handshake']}" if "handshake" in r else "") + ")" for r in rows) or "none"

    def _list_terminals(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        tabs = self._host.workspace.list_tabs().get(timeout=ASK)
        bot = self._host.service("bot")
        states = bot.states().get(timeout=ASK) if bot is not None else {}
        rows = []
        for tab in tabs:
            row = {"name": tab.name, "command": " ".join(tab.command), "role": tab.role,
                   "state": "running" if tab.running else f"exited ({tab.exit_code})",
                   "activity": tab.activity}
            if tab.agent:  # what the tab's program is doing: working, waiting for its user, idle, ...
                row["agent"] = {"kind": tab.agent["kind"], "state": tab.agent["state"],
                                "for_s": round(max(0.0, time.time() - (tab.agent["since"] or time.time()))),
                                "reason": tab.agent["reason"]}
            if tab.role == "peer":
                row["handshake"] = states.get(tab.name, {}).get("handshake", "not_connected")
            rows.append(row)
        return {"ok": True, "terminals": rows}

    def _read_terminal(self, args, run_id, allow_shell, cancel) -> dict[str, Any]:
        handle = self._handle(args["tab"])
        read = handle.terminal.read_text(args["lines"]).get(timeout=ASK)
        cursor = read.get("cursor") or {}
        text, prompt = mark_prompt(read["text"], cursor.get("col")) if handle.role == "shell" else (read["text"], None)
        result: dict[str, Any] = {"ok": True, "tab": handle.name}
        if self._budget is not None:
            text, left_out = self._budget.lines(text)
            if left_out:
                result["left_out"] = (f"{left_out} older lines were left out to fit the context; "
                                      "these are the most recent ones")
        result.update(text=text, cursor=read["cursor"], title=read["title"], alt_screen=read["alt_screen"])
        if prompt:
            result["prompt"] = f"{prompt} is the shell's prompt, shown as [prompt]; never type it"
        return result

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
        try:
            outcome = self._peers.send(handle, text, cancel, self._send_wait)
        except PeerWaiting as exc:
            self._unsent(handle)
            return {"ok": False, "error": exc.message.split(" It shows:")[0],
                    "peer_waiting": {"tab": exc.tab, "screen": exc.screen}}
        except BaseException:
            self._unsent(handle)
            raise
        return {"ok": True, "tab": handle.name, **outcome}

    def _unsent(self, handle: Any) -> None:
        """Nothing was typed: the filter's bookkeeping (the peer introduced, talked to) is
        undone, or the next real send would go without the first-contact header."""
        bot = self._host.service("bot")
        if handle.role == "peer" and bot is not None:
            bot.send_failed(handle.name).get(timeout=ASK)

    def tab_names(self, tab: str) -> Callable[[], set[str]]:
        """A function giving tab `tab`'s names, casefolded: this one and the one it has now, so
        a reply from a tab renamed meanwhile is still known for its reply."""
        tab_id = self._handle(tab).id
        names = {tab.casefold()}

        def current() -> set[str]:
            try:
                tabs = self._host.workspace.list_tabs().get(timeout=ASK)
            except (pykka.ActorDeadError, pykka.Timeout):
                return names
            names.update(t.name.casefold() for t in tabs if t.id == tab_id)
            return names

        return current

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
        messages, waiting = self._peers.wait(self._inbox, args["seconds"], cancel)
        result: dict[str, Any] = {"ok": True, "waited": round(time.monotonic() - start, 2)}
        if messages:
            result["peer_messages"] = messages
        if waiting:
            result["peer_waiting"] = waiting
        return result
