"""@-relay: `@Claude what is 6 times 7?` goes to the peer tab without any model.

The text is typed with the usual verified send (the first-contact header first when the peer
is not connected, through the same send filter as the coordinator's own sends), then the
peer's bot-chat reply is awaited and becomes the answer, word for word (commas and all).
Several names (`@Claude @Codex ...`) are asked in turn and each answer is given under its
name. A peer that does not reply within `relay_timeout` gets its screen shown instead. It
needs no backend at all: talking to the Claude tab works on any machine.
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable

from ...protocol.toolcall import Action
from .backends.stream import Cancelled, LlmError
from .events import ToolEnd, ToolStart
from .inbox import PeerInbox

_NAME = re.compile(r"@([^\s,:;@]+)[\s,:;]*")


def parse_relay(prompt: str) -> tuple[list[str], str] | None:
    """(peer names, text) for a request that starts with `@Name`; None otherwise."""
    rest, names = prompt.lstrip(), []
    while (match := _NAME.match(rest)) is not None:
        names.append(match.group(1))
        rest = rest[match.end():]
    return (names, rest.strip()) if names else None


class Relay:
    def __init__(self, *, run_id: str, executor: Any, inbox: PeerInbox, publish: Callable[[Any], None],
                 cancel: Any, timeout: float, record: dict[str, Any]) -> None:
        self.run_id, self.executor, self.inbox = run_id, executor, inbox
        self.publish, self.cancel, self.timeout, self.record = publish, cancel, timeout, record

    def run(self, names: list[str], text: str) -> str:
        if not text:
            raise LlmError(f"nothing to say to {', '.join(names)}: write the message after the name "
                           f"(tiki ask \"@{names[0]} what is 6 times 7?\")")
        roles = {row["name"].casefold(): row for row in self.executor.list_rows()}
        answers: list[tuple[str, str]] = []
        for name in names:
            row = roles.get(name.casefold())
            if row is None:
                answers.append((name, f"no tab named '{name}'; tabs are: "
                                      + ", ".join(r["name"] for r in roles.values())))
            elif row["role"] != "peer":
                answers.append((row["name"], f"'{row['name']}' is a {row['role']} tab: @Name talks to peer tabs "
                                             "(AI CLIs); ask the coordinator to type into a shell"))
            else:
                answers.append((row["name"], self.ask(row["name"], text)))
        if all(answer.startswith("no tab named") for _, answer in answers):
            raise LlmError(answers[0][1])
        if len(answers) == 1:
            return answers[0][1]
        return "\n\n".join(f"{name}:\n{answer}" for name, answer in answers)

    def ask(self, name: str, text: str) -> str:
        """Send `text` to peer `name`, then its bot-chat reply (or what its screen shows)."""
        stale = self.inbox.take_from(name)  # said before this question: not its answer
        try:
            return self._ask(name, text)
        finally:
            self.inbox.put_back(stale)  # still news for the coordinator's next run

    def _ask(self, name: str, text: str) -> str:
        sent = self._tool("send_to_terminal", {"tab": name, "text": text})
        early = sent.pop("peer_messages", [])  # a reply faster than the send's own check
        for message in early:
            if message["from"].casefold() != name.casefold():
                self.inbox.put(message["from"], message["text"], message["verified"])
        if not sent.get("ok"):
            return f"could not send to {name}: {sent.get('error')}"
        reply = next((m for m in early if m["from"].casefold() == name.casefold()), None)
        self.publish(ToolStart(self.run_id, "wait", {"for": name, "seconds": self.timeout}))
        began = time.monotonic()
        if reply is None:
            reply = self.inbox.wait_for(name, self.timeout, self.cancel)
        if self.cancel.is_set():
            raise Cancelled()
        waited = round(time.monotonic() - began, 3)
        result = {"ok": reply is not None, "waited": waited, **({"peer_messages": [reply]} if reply else {})}
        self.publish(ToolEnd(self.run_id, "wait", {"for": name, "seconds": self.timeout}, result, waited))
        self.record.setdefault("relay", []).append({"tab": name, "sent": sent, "reply": reply, "waited": waited})
        if reply is not None:
            return reply["text"] if reply.get("verified", True) else f"{reply['text']} (unverified sender)"
        screen = self._tool("read_terminal", {"tab": name, "lines": 15})
        return (f"no reply from {name} within {self.timeout:g} s (relay_timeout); its screen shows:\n"
                + screen.get("text", screen.get("error", "")))

    def _tool(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        self.publish(ToolStart(self.run_id, tool, args))
        began = time.monotonic()
        result = self.executor.run(Action(tool, args), run_id=self.run_id, allow_shell=False, cancel=self.cancel)
        duration = round(time.monotonic() - began, 3)
        self.publish(ToolEnd(self.run_id, tool, args, dict(result), duration))
        return result
