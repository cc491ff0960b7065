"""The agent panel: a log and an input line with a mode badge. Shift+Tab cycles the mode.

- CHT: the line is typed into the active tab; Enter follows as a separate write 200 ms later.
  Text over 200 characters goes in 200-character chunks 50 ms apart, then Enter after 300 ms
  (AI TUIs drop an Enter that arrives with a paste).
- KEY: keys are forwarded raw to the active tab, to answer a peer's menu without leaving here.
- AI: the line is a request to the coordinator; its progress shows in the log. Esc cancels,
  `/reset` starts a new AI session.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, RichLog

from ...actors import reactor_events as rev
from .keys import key_to_bytes

MODES = ("CHT", "KEY", "AI")
CHUNK, CHUNK_GAP, ENTER_AFTER, ENTER_AFTER_CHUNKS = 200, 0.05, 0.2, 0.3


def type_line(write: Callable[[bytes], Any], text: str, sleep: Callable[[float], None] = time.sleep) -> None:
    """CHT typing: the text (chunked when long), then Enter as its own write."""
    data = text
    if len(data) > CHUNK:
        for start in range(0, len(data), CHUNK):
            if start:
                sleep(CHUNK_GAP)
            write(data[start:start + CHUNK].encode("utf-8"))
        sleep(ENTER_AFTER_CHUNKS)
    else:
        if data:
            write(data.encode("utf-8"))
        sleep(ENTER_AFTER)
    write(b"\r")


class ModeInput(Input):
    """The panel's input line; in KEY mode it forwards keys instead of editing."""

    def __init__(self, panel: "AgentPanel", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.panel = panel

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "shift+tab":
            event.stop()
            event.prevent_default()
            self.panel.cycle_mode()
            return
        if self.panel.mode == "KEY" and not event.key.startswith("f"):
            event.stop()
            event.prevent_default()
            self.panel.forward_key(event)
            return
        if self.panel.mode == "AI" and event.key == "escape":
            event.stop()
            self.panel.cancel_run()
            return
        await super()._on_key(event)


class AgentPanel(Vertical):
    def __init__(self, app_ref: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tiki = app_ref
        self.mode = "CHT"
        self.ai_reason: str | None = "checking the coordinator's backend..."
        self._reason_shown = False

    def compose(self) -> ComposeResult:
        yield RichLog(id="agent-log", wrap=True, markup=False, highlight=False)
        with Horizontal(id="agent-input-row"):
            yield Label(f" {self.mode} ", id="mode-badge")
            yield ModeInput(self, id="agent-input", placeholder="CHT: type into the active tab")

    @property
    def log_widget(self) -> RichLog:
        return self.query_one("#agent-log", RichLog)

    def write(self, text: str | Text, style: str = "") -> None:
        self.log_widget.write(Text(text, style=style) if isinstance(text, str) else text)

    # -- modes -------------------------------------------------------------------------------

    def cycle_mode(self) -> None:
        order = list(MODES)
        index = order.index(self.mode)
        for step in range(1, len(order) + 1):
            candidate = order[(index + step) % len(order)]
            if candidate == "AI" and self.ai_reason:
                if not self._reason_shown:
                    self.write(f"AI mode unavailable: {self.ai_reason}", "yellow")
                    self._reason_shown = True
                continue
            self.set_mode(candidate)
            return

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.query_one("#mode-badge", Label).update(f" {mode} ")
        self.query_one("#mode-badge", Label).set_classes(f"mode-{mode.lower()}")
        hints = {"CHT": "CHT: type into the active tab", "KEY": "KEY: keys go straight to the active tab",
                 "AI": "AI: ask the coordinator (Esc cancels, /reset = new session)"}
        self.query_one("#agent-input", ModeInput).placeholder = hints[mode]

    def set_ai_available(self, reason: str | None) -> None:
        self.ai_reason = reason
        self._reason_shown = False

    # -- actions -----------------------------------------------------------------------------

    def forward_key(self, event: events.Key) -> None:
        terminal = self.tiki.active_terminal()
        data = key_to_bytes(event.key, event.character)
        if terminal is not None and data is not None:
            terminal.write(data)

    def cancel_run(self) -> None:
        reactor = self.tiki.host.service("reactor")
        if reactor is not None:
            reactor.cancel()
            self.write("cancel requested", "yellow")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        if self.mode == "CHT":
            terminal = self.tiki.active_terminal()
            if terminal is None:
                self.write("no active tab", "red")
                return
            self.run_worker(lambda: type_line(terminal.write, text), thread=True, group="cht")
        elif self.mode == "AI":
            self.submit_ai(text.strip())

    def submit_ai(self, text: str) -> None:
        reactor = self.tiki.host.service("reactor")
        if not text or reactor is None:
            return
        if text == "/reset":
            reactor.reset()
            self.write("new AI session: the coordinator forgot the conversation", "cyan")
            return
        self.write(Text.assemble(("you ", "bold"), text))
        reactor.submit(text, source="user")  # a tell in effect; progress arrives as events

    # -- coordinator progress ------------------------------------------------------------------

    def show_run_event(self, event: Any) -> None:
        if isinstance(event, rev.Thinking):
            self.write(f"… thinking (turn {event.turn})", "dim")
        elif isinstance(event, rev.ToolStart):
            self.write(f"→ {event.tool} {json.dumps(event.args, ensure_ascii=False)}", "cyan")
        elif isinstance(event, rev.ToolEnd):
            result = json.dumps(event.result, ensure_ascii=False)
            style = "green" if event.result.get("ok") else "red"
            self.write(f"← {event.tool} {event.duration:.2f} s: {result[:400]}", style)
        elif isinstance(event, rev.Correction):
            self.write(f"! {event.message}", "yellow")
        elif isinstance(event, rev.RunDone):
            self.write(Text.assemble(("coordinator ", "bold green"), event.message))
        elif isinstance(event, rev.RunError):
            self.write(f"coordinator stopped: {event.reason}", "red")
        elif isinstance(event, rev.Generating) and event.tokens % 20 == 0:
            self.write(f"  {event.tokens} tokens", "dim")
