"""@-relay: `@Claude what is 6 times 7?` goes to the peer tab without any model.

The text is typed with the usual verified send (the first-contact header first when the peer
is not connected, through the same send filter as the coordinator's own sends), then the
peer's bot-chat reply is awaited and becomes the answer, word for word (commas and all).
Several names (`@Claude @Codex ...`; each peer once) are asked in turn and each answer is given
under its name. The reply is matched by tab, not by name: a peer renamed while we wait still
answers; and by time: the first message the peer sends after the question was typed -- a peer
at work gets it once idle, and its answer to that earlier work, which comes meanwhile, is news
for the coordinator's next run, not the reply; nor is `handshake-ok`, a header acknowledged
again. It needs no backend at all: talking to the Claude tab works on any machine.

A relay that does not get every answer fails (`RelayFailed`, with the answers it did get): a
peer that does not reply within `relay_timeout` (its screen is shown; exit 4), and a send that
is refused -- the peer waits for its user (the screen that shows what it asks), its tab has
exited, no such tab, not a peer (exit 1).
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable

from ...protocol import ipc
from ...protocol.handshake import is_handshake_ok
from ...protocol.limits import MAX_CHAT_MESSAGE
from ...protocol.toolcall import Action
from .backends.stream import Cancelled, LlmError
from .events import ToolEnd, ToolStart
from .inbox import PeerInbox

# A tab name is letters, digits, '_', '-', '.' (actors/tabs/workspace_state.NAME_PATTERN): the
# name stops at anything else, so `@Bot! hi` and `@Bot? hi` name Bot.
_NAME = re.compile(r"@([\w.-]+)[^\w\s.@-]*[\s,:;]*")


class RelayFailed(LlmError):
    """Not every peer answered; `code` is the ipc error code the exit status follows."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


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
        rows = {row["name"].casefold(): row for row in self.executor.list_rows()}
        answers: list[tuple[str, str, str]] = []  # (name, answer or why not, "" or the ipc error code)
        for name in names:
            # "@Bot. hi": a sentence's full stop, unless a tab's name really ends with one
            row = rows.get(name.casefold()) or rows.get(name.rstrip(".").casefold())
            if row is not None and any(row["name"] == asked for asked, _, _ in answers):
                continue  # `@Bot @bot hi`: asked once
            if row is None:
                answers.append((name, f"no tab named '{name}'; tabs are: "
                                      + ", ".join(r["name"] for r in rows.values()), ipc.UNKNOWN_TAB))
            elif row["role"] != "peer":
                answers.append((row["name"], f"'{row['name']}' is a {row['role']} tab: @Name talks to peer tabs "
                                             "(AI CLIs); ask the coordinator to type into a shell", ipc.REFUSED))
            else:
                answers.append((row["name"], *self.ask(row["name"], text)))
        failed = [(name, code) for name, _, code in answers if code]
        if len(answers) == 1:
            message = answers[0][1]
        else:
            message = "\n\n".join(f"{name}:\n{answer}" for name, answer, _ in answers)
            if failed:
                message += f"\n\nno answer from {', '.join(name for name, _ in failed)}"
        if failed:
            # exit 4 only when every failure is a peer that did not answer in time
            timed_out = all(code == ipc.TIMEOUT for _, code in failed)
            raise RelayFailed(message, ipc.TIMEOUT if timed_out else ipc.REFUSED)
        return message

    def ask(self, name: str, text: str) -> tuple[str, str]:
        """Send `text` to peer `name`: (its bot-chat reply or why there is none, "" or the ipc
        error code of the failure)."""
        senders = self.executor.tab_names(name)  # the tab's names, its new one too if renamed meanwhile
        stale: list[dict[str, Any]] = []
        try:
            return self._ask(name, text, senders, stale)
        finally:
            self.inbox.put_back(stale)  # still news for the coordinator's next run

    def _ask(self, name: str, text: str, senders: Callable[[], set[str]],
             stale: list[dict[str, Any]]) -> tuple[str, str]:
        asked = time.monotonic()
        sent = self._tool("send_to_terminal", {"tab": name, "text": text}, send_wait=self.timeout)
        # What the peer said before the question was typed does not answer it: said before it was
        # asked, or -- a peer at work gets it once idle -- its answer to an earlier message,
        # which comes while the question waits its turn. (A reply faster than the send's own
        # check stays in the inbox for the wait below.)
        stale += self.inbox.take_from(senders(), before=asked + sent.get("queued_s", 0.0))
        if not sent.get("ok"):
            waiting = sent.get("peer_waiting")
            shows = f"\nIt shows:\n{waiting['screen']}" if waiting else ""
            return f"could not send to {name}: {sent.get('error')}{shows}", ipc.REFUSED
        if sent.get("delivery") == "queued":  # at work all along: whatever it says is about that work
            stale += self.inbox.take_from(senders())
            return self._no_reply(name, senders, (
                f"{{name}} was at work for all of {self.timeout:g} s (relay_timeout): the question waits its "
                "turn and is typed once it is idle; its answer then goes to the coordinator"))
        self.publish(ToolStart(self.run_id, "wait", {"for": name, "seconds": self.timeout}))
        began = time.monotonic()
        reply = self.inbox.wait_for(senders, self.timeout, self.cancel)
        while reply is not None and is_handshake_ok(reply["text"]):  # a header acknowledged again
            stale.append(reply)
            reply = self.inbox.wait_for(senders, self.timeout - (time.monotonic() - began), self.cancel)
        if self.cancel.is_set():
            raise Cancelled()
        waited = round(time.monotonic() - began, 3)
        result = {"ok": reply is not None, "waited": waited, **({"peer_messages": [reply]} if reply else {})}
        self.publish(ToolEnd(self.run_id, "wait", {"for": name, "seconds": self.timeout}, result, waited))
        self.record.setdefault("relay", []).append({"tab": name, "sent": sent, "reply": reply, "waited": waited})
        if reply is not None:
            answer = reply["text"] if reply.get("verified", True) else f"{reply['text']} (unverified sender)"
            return answer, ""
        # bot-chat refuses a message over MAX_CHAT_MESSAGE on the peer's side: it cannot reach us
        return self._no_reply(name, senders, (
            f"no reply from {{name}} within {self.timeout:g} s (relay_timeout; a bot-chat reply over "
            f"{MAX_CHAT_MESSAGE // 1024} KB is refused and never arrives)"))

    def _no_reply(self, name: str, senders: Callable[[], set[str]], why: str) -> tuple[str, str]:
        """A timeout: `why` (its `{name}` the peer's name now), and what the peer's screen shows."""
        renamed = max(senders() - {name.casefold()}, default=name)  # its screen is under its new name
        screen = self._tool("read_terminal", {"tab": renamed, "lines": 15})
        why = why.format(name=screen.get("tab", name))
        return f"{why}; its screen shows:\n" + screen.get("text", screen.get("error", "")), ipc.TIMEOUT

    def _tool(self, tool: str, args: dict[str, Any], **how: Any) -> dict[str, Any]:
        self.publish(ToolStart(self.run_id, tool, args))
        began = time.monotonic()
        result = self.executor.run(Action(tool, args), run_id=self.run_id, allow_shell=False, cancel=self.cancel,
                                   drain=False, **how)
        duration = round(time.monotonic() - began, 3)
        self.publish(ToolEnd(self.run_id, tool, args, dict(result), duration))
        return result
