"""The agent loop, readable in one class: one coordinator run from request to answer.

`run` adds the request (with the tabs of the moment, so "which tabs are open" needs no tool)
and takes steps until one answers. A `step` is one model turn: `query` asks for one action
(the schema or grammar built from the catalogue, minus calls the repeat guard would block),
`execute` runs it and feeds the result back. What goes wrong is fed back too, never raised
at the user: a reply cut off at the budget or one that does not parse is dropped from the
history and the turn retried with a correction, shorter strings and a small temperature; a
`done` in tikitaka's own words (its bounce, a tool's error) is sent back once; a
`done` for a request that names a peer nobody asked is bounced once (a second one is taken, and
`unasked` says whom it skipped, for the user to see); a prompt that would not
fit the window is compacted first (`context`), and one the backend still refuses is
compacted harder and retried.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable

from ...protocol.catalogue import Shape, action_schema, describe_tools, gbnf, native_tools
from ...protocol.guards import Guards
from ...protocol.toolcall import Action, FormatError, ToolCallError, UnknownTool, parse_action
from .backends.stream import Cancelled, ContextOverflow, LlmError
from .context import ContextTooSmall, Conversation, TokenCounter
from .events import Compacted, Correction, ToolEnd, ToolStart, TurnStarted
from .limits import COMPACT_TO, RETRY_TEMPERATURE, WINDOW_SAFETY
from .meter import Meter
from .results import Budget, action_summary, summarize

PLACEHOLDER = re.compile(r"^\s*<[^<>\n]{2,40}>\s*$")  # "<tab name>", as in the system prompt's examples
TABS = "\n\n(Tabs now: "  # the request's tail: the tabs of the moment


def system_prompt() -> str:
    template = resources.files("tikitaka.assets").joinpath("system_prompt.md").read_text(encoding="utf-8")
    return template.replace("{tools}", describe_tools())


@dataclass
class Run:
    """What one run needs from the coordinator."""

    run_id: str
    prompt: str
    source: str
    allow_shell: bool
    settings: Any
    conversation: Conversation
    append: Callable[[str, str, str, str], None]  # role, content, kind, summary (ignored after a reset)
    backend: Callable[[], Any]
    executor: Any
    publish: Callable[[Any], None]
    cancel: Any
    tab_names: Callable[[], list[str]]
    record: dict[str, Any] = field(default_factory=dict)
    late: list[dict[str, Any]] = field(default_factory=list)  # peer messages from between runs
    note: str = ""  # how the previous run ended, when it did not finish


class AgentLoop:
    def __init__(self, run: Run) -> None:
        self.run_ = run
        self.settings = run.settings
        self.guards = Guards(max_turns=run.settings.max_turns)
        self.tokens = 0
        self.correction: str | None = None  # told to the model on the retry, then forgotten
        self.shorter = False
        self.overflowed = False
        self.bounced = False
        self.contacted: set[str] = set()
        self.named_peers: list[str] = []
        self.counter = TokenCounter()
        self.request_chars = 0  # the request's length before it was first cut

    @property
    def turns(self) -> int:
        return self.guards.turns

    @property
    def unasked(self) -> list[str]:
        """The peers the request named that the run never asked (nor heard from)."""
        return [name for name in self.named_peers if name.casefold() not in self.contacted]

    # -- the loop --------------------------------------------------------------------------------

    def run(self) -> str:
        run = self.run_
        rows = run.executor.list_rows()
        self.named_peers = [r["name"] for r in rows if r["role"] == "peer"
                            and re.search(rf"(?<!\w){re.escape(r['name'])}(?!\w)", run.prompt, re.I)]
        if run.source.startswith("peer:"):
            self.contacted.add(run.source[5:].casefold())
        self.contacted.update(str(m.get("from", "")).casefold() for m in run.late)
        late = ("\n\nPeer messages that arrived after your last run: " + json.dumps(run.late, ensure_ascii=False)
                if run.late else "")
        run.append("user", f"{run.note}{run.prompt}{late}{TABS}{run.executor.overview(rows)})", "request", "")
        while True:
            answer = self.step()
            if answer is not None:
                return answer

    def step(self) -> str | None:
        self.guards.start_turn()
        action = self.query()
        if action is None:
            return None  # a correction: the next turn tries again
        if action.tool == "done":
            self.guards.check(action)
            result = self.bounce()
            if result is None:
                return action.args["message"]
            self.run_.publish(Correction(self.run_.run_id, result["error"], "answered too early"))
            self.feed_back(action, result)
            return None
        self.execute(action)
        return None

    # -- asking the model ------------------------------------------------------------------------

    def query(self) -> Action | None:
        run, settings = self.run_, self.settings
        model = run.backend()
        self.counter.exact = model.count_tokens
        reasoning = model.reasons() if hasattr(model, "reasons") else settings.reasoning == "on"
        budget = settings.reply_budget(reasoning)
        shape = Shape(tuple(run.tab_names()), self.guards.exhausted(), 0.5 if self.shorter else 1.0,
                      settings.think_tokens * 3 if reasoning and model.name == "embedded" else 0)
        self.fit(budget)
        messages = run.conversation.messages()
        if self.correction:  # on the last user message, never stored: the prefix cache survives
            messages[-1] = {**messages[-1], "content": messages[-1]["content"] + "\n\n" + self.correction}
        options: dict[str, Any] = {"num_predict": budget}
        if self.correction:
            options["temperature"] = max(settings.temperature, RETRY_TEMPERATURE)
        if model.name == "embedded":  # llama.cpp gets our grammar; the others the schema
            options["grammar"] = gbnf(shape=shape)
        estimate = run.conversation.tokens(self.counter)
        run.publish(TurnStarted(run.run_id, self.turns, estimate))
        meter = Meter(run.publish, run.run_id, self.turns)
        try:
            output = model.chat(messages, schema=action_schema(shape=shape), cancel=run.cancel,
                                on_progress=meter.progress, options=options, tools=native_tools(shape=shape))
        except ContextOverflow as exc:
            if self.overflowed:
                raise LlmError(f"the backend still refuses the prompt after compacting it: {exc}") from None
            self.overflowed = True
            self.fit(budget, harder=True)
            run.publish(Correction(run.run_id, str(exc), "prompt too long: compacted and retried"))
            return None
        except BaseException:
            self.tokens += meter.tokens  # a turn cut short (cancelled, failed) still generated these
            raise
        meter.final(output)
        self.tokens += output.tokens
        total = output.prompt_total is not None
        self.counter.calibrate(estimate, output.prompt_total if total else output.prompt_tokens, total)
        turn = {"output": output.text, "tokens": output.tokens, "prompt_eval": output.prompt_tokens,
                "prompt_total": output.prompt_total, "first_token": round(output.first_token, 3),
                "model_seconds": round(output.seconds, 3)}
        run.record.setdefault("turns", []).append(turn)
        if output.cut_off:
            self.correct(turn, f"Correction: your reply was cut off at {output.tokens} tokens, the limit. "
                               "Reply again with one complete action and keep its text much shorter.",
                         f"cut off at {output.tokens} tokens", "was cut off at the reply budget")
            return None
        try:
            action = parse_action(output.text, allow_repair=self.guards.may_repair())
        except ToolCallError as exc:
            cause = "not JSON" if isinstance(exc, FormatError) else (
                "unknown tool" if isinstance(exc, UnknownTool) else "invalid arguments")
            self.correct(turn, f"Correction: {exc}", cause, "did not parse")
            return None
        copied = next((v for v in action.args.values() if isinstance(v, str) and PLACEHOLDER.match(v)), None)
        if copied is not None:  # small models copy the examples' placeholders verbatim
            self.correct(turn, f"Correction: {copied.strip()} is a placeholder from the examples; "
                               "write the real value instead.", "placeholder copied", "copied a placeholder")
            return None
        if action.tool == "done" and self.guards.copied_our_words(action.args["message"]):
            self.correct(turn, "Correction: that message is tikitaka's to you, not your answer. Do what the "
                               "request asks, then call done with the answer in your own words.",
                         "copied tikitaka's words", "copied tikitaka's words")
            return None
        self.correction, self.shorter = None, False
        turn["action"] = action.to_json()
        if action.tool == "done":  # an answer: what a folded-away run is remembered by
            run.append("assistant", output.text, "answer", action.args["message"])
        else:
            text = json.dumps(action.to_json(), ensure_ascii=False)
            run.append("assistant", output.text, "action", action_summary(action.to_json()) if len(text) > 200 else "")
        return action

    def correct(self, turn: dict[str, Any], message: str, cause: str, what: str) -> None:
        """Drop the reply, retry the turn with `message`: the model learns the real cause."""
        turn["correction"], turn["cause"] = message, cause
        self.guards.format_error(what)
        self.correction = message
        self.shorter = self.shorter or cause.startswith("cut off")
        self.run_.publish(Correction(self.run_.run_id, message, cause))
        return None

    def fit(self, reply_budget: int, harder: bool = False) -> None:
        """Compact the conversation so that the prompt and one reply fit the window."""
        run, window = self.run_, self.settings.num_ctx
        limit = int(window * (1 - WINDOW_SAFETY)) - reply_budget - 64
        if harder:
            limit = min(limit, run.conversation.tokens(self.counter) // 2)
        entries = run.conversation.entries
        request = next((e for e in reversed(entries) if e.kind == "request"), None)
        original, others = (request.content if request else ""), any(e.kind != "system" and e is not request
                                                                      for e in entries)
        try:
            done = run.conversation.compact(self.counter, limit, int(limit * COMPACT_TO))
        except ContextTooSmall as exc:
            raise LlmError(f"the context window (num_ctx = {window}) is too small: {exc} and a reply needs "
                           f"{reply_budget}; raise num_ctx in [coordinator] of config.toml") from None
        if done:
            note = "older results shortened to one line each"
            if request is not None and request.content != original:  # compaction's last resort: the request
                kept, whole = self.keep_tabs(request, original)
                note = ("older parts shortened, and " if others else "") + (
                    f"your request was cut to {kept:,} of {whole:,} characters to fit the model's context "
                    f"(ctx {window:,})")
            run.publish(Compacted(run.run_id, done[0], done[1], note))
            run.record.setdefault("compactions", []).append(list(done))

    def keep_tabs(self, request: Any, original: str) -> tuple[int, int]:
        """The cut request again, its tabs tail kept whole (the model needs them), the body
        cut in their place within what the cut took; (characters kept, of the body's)."""
        head, tabs, tail = original.rpartition(TABS)
        if not tabs:
            head, tail = original, ""
        head = head.split("\n[... your request was cut here")[0]  # cut again: the earlier mark goes
        whole = self.request_chars = self.request_chars or len(head)  # the first cut saw it all
        room, cut = self.counter.count(request.content), request.content
        keep = min(len(head), len(os.path.commonprefix([original, cut])))
        while True:
            text = (head[:keep] + f"\n[... your request was cut here to fit the context window: "
                    f"{whole - keep:,} characters left out]" + (tabs + tail if tabs else ""))
            if keep == 0 or self.counter.count(text) <= room:
                break
            keep = int(keep * 0.9)
        request.replace(text)
        return keep, whole

    # -- acting ----------------------------------------------------------------------------------

    def execute(self, action: Action) -> None:
        run = self.run_
        blocked = self.guards.check(action)
        if run.cancel.is_set():
            raise Cancelled()
        run.publish(ToolStart(run.run_id, action.tool, action.args))
        began = time.monotonic()
        if blocked:
            result: dict[str, Any] = {"ok": False, "error": blocked}
        else:
            budget = Budget(self.settings.result_budget(), self.counter.count)
            result = run.executor.run(action, run_id=run.run_id, allow_shell=run.allow_shell,
                                      cancel=run.cancel, budget=budget)
        duration = round(time.monotonic() - began, 3)
        run.record["turns"][-1].update(result=result, duration=duration)
        run.publish(ToolEnd(run.run_id, action.tool, action.args, result, duration))
        if run.cancel.is_set():
            raise Cancelled()
        if action.tool == "send_to_terminal" and result.get("ok"):
            self.contacted.add(str(action.args["tab"]).casefold())
        self.contacted.update(str(m.get("from", "")).casefold() for m in result.get("peer_messages", []))
        self.feed_back(action, result)

    def feed_back(self, action: Action, result: dict[str, Any]) -> None:
        self.run_.append("user", f"Result of {action.tool}: {json.dumps(result, ensure_ascii=False)}", "result",
                         summarize(action.tool, action.args, result))

    def bounce(self) -> dict[str, Any] | None:
        """A `done` for a request that names a peer nobody asked: sent back, once."""
        missing = self.unasked
        if self.bounced or not missing:
            return None
        self.bounced = True
        name = missing[0]
        return {"ok": False, "error": f"not done: you have not asked {name} yet. send_to_terminal the question "
                                      f"to {name}, wait for its answer, then call done with that answer"}
