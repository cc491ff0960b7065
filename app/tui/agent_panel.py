"""The agent panel: a log and an input line with a mode badge. Shift+Tab cycles the mode.

- CHT: the line is typed into the active tab the way every sender types (the tab's outbox in
  the host, actors/tabs/outbox): Enter as its own write once the echo settled, and into an
  agent at least 150 ms later and verified; a working agent gets it when it is idle, and an
  agent waiting for its user refuses it (the panel says so).
- KEY: keys are forwarded raw to the active tab, to answer a peer's menu without leaving here.
- AI: the line is a request to the coordinator; its progress shows in the log. Esc cancels,
  `/reset` starts a new AI session.

The panel follows its own runs by run id (learnt from the `queued` event of the request it
sent): other clients' runs (`tiki ask`, another UI, a peer's continuation) share the
coordinator and their events reach every UI, so they are shown labelled as theirs, and Esc
cancels only this panel's runs, queued or running.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, RichLog

from ...protocol import ops
from ..agent_progress import event_text, status_text, unasked_text
from .keys import key_to_bytes
from .panel_cht import ChtLines
from .panel_log import PanelLog
from .text_field import TextField
from .tool_card import tool_card

MODES = ("CHT", "KEY", "AI")


class ModeInput(TextField):
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
        if self.panel.mode == "KEY":  # the prefix is taken by the app before it gets here
            event.stop()
            event.prevent_default()
            self.panel.forward_key(event)
            return
        if self.panel.mode == "AI" and event.key == "escape":
            event.stop()
            self.panel.cancel_run()
            return
        if event.key in ("pageup", "pagedown", "ctrl+home", "ctrl+end"):  # the log, from the keyboard
            event.stop()
            event.prevent_default()
            self.panel.scroll_log(event.key)
            return
        if event.key == "enter":
            # Submitted here, in order with the keys: through Input's `submit` binding the line
            # went after the keys read behind the Enter were typed into it (lines typed ahead
            # were merged, and sent once per Enter). The next line starts empty.
            event.stop()
            event.prevent_default()
            line, self.value = self.value, ""
            self.post_message(self.Submitted(self, line))
            return
        await super()._on_key(event)


LOG_KEPT = 1000  # what the log keeps to lay out again at a new width (the oldest go first)


class AgentPanel(Vertical):
    def __init__(self, app_ref: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tiki = app_ref
        self.mode = "CHT"
        self.ai_reason: str | None = "checking the coordinator's backend..."
        self._reason_shown = False
        self._asked: list[str] = []  # requests sent whose run id is not known yet
        self._mine: list[str] = []  # this panel's runs that have not ended, oldest first
        self._sources: dict[str, str] = {}  # other runs' sources, for their label
        # The log lays a line out once, at the width it has then: hidden, 0 columns (a character
        # a row once shown, a tool card an empty box); docked elsewhere, cut at the new edge. So
        # what it shows is kept, and laid out again when its width changes (`_lay_out`).
        self.hidden = False
        self._kept: deque[RenderableType] = deque(maxlen=LOG_KEPT)
        self._laid_out: int | None = None  # the log's width when it was last laid out (None: stale)
        self.cht = ChtLines(self)

    def compose(self) -> ComposeResult:
        yield PanelLog(id="agent-log", wrap=True, min_width=1, markup=False, highlight=False)  # wrap at its own width
        yield Label("", id="agent-status", markup=False)
        with Horizontal(id="agent-input-row"):
            yield Label(f" {self.mode} ", id="mode-badge")
            yield ModeInput(self, id="agent-input", placeholder="CHT: type into the active tab")

    @property
    def log_widget(self) -> RichLog:
        return self.query_one("#agent-log", RichLog)

    def write(self, text: str | RenderableType, style: str = "") -> None:
        line = Text(text, style=style) if isinstance(text, str) else text
        self._kept.append(line)
        if self.hidden:
            self._laid_out = None
        else:
            self.log_widget.write(line)

    def scroll_log(self, key: str) -> None:
        """PageUp / PageDown a page of the log, Ctrl+Home / Ctrl+End its start and end (the log
        cannot take the focus: the input line keeps it, and these keys edit nothing there)."""
        log = self.log_widget
        {"pageup": log.scroll_page_up, "pagedown": log.scroll_page_down,
         "ctrl+home": log.scroll_home, "ctrl+end": log.scroll_end}[key](animate=False)

    def shown(self, visible: bool) -> None:
        """The panel was hidden or shown (`apply_panel`)."""
        self.hidden = not visible
        if visible:
            self.call_after_refresh(self._lay_out)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._lay_out)

    def _lay_out(self) -> None:
        """What the log keeps, laid out again at its width, when that changed (or lines came
        while it was hidden)."""
        log = self.log_widget
        if self.hidden or log.size.width <= 0 or log.size.width == self._laid_out:
            return
        self._laid_out = log.size.width
        log.clear()
        for line in self._kept:
            log.write(line)

    # -- modes -------------------------------------------------------------------------------

    def cycle_mode(self) -> None:
        order = list(MODES)
        index = order.index(self.mode)
        for step in range(1, len(order) + 1):
            candidate = order[(index + step) % len(order)]
            if candidate == "AI" and self.ai_reason:
                no_coordinator = not self.tiki.has_coordinator
                if not self._reason_shown:
                    # with a coordinator but no backend, `@Name ...` relays still work: no model needed
                    self.write(f"AI mode unavailable: {self.ai_reason}" if no_coordinator else
                               f"AI mode: only `@Name ...` relays to peer tabs work: {self.ai_reason}", "yellow")
                    self._reason_shown = True
                if no_coordinator:
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
        view = self.tiki.view
        data = key_to_bytes(event.key, event.character, app_cursor=view.app_cursor)
        if data is not None:
            view.write(data)

    def cancel_run(self) -> None:
        """Cancel this panel's runs by id (a queued one never starts); never another client's."""
        if not self.tiki.has_coordinator:
            return
        if not self._mine:
            self.write("nothing of yours is running" + (" yet: try again in a moment" if self._asked else ""), "dim")
            return
        for run_id in self._mine:
            self.tiki.client.call(ops.AGENT_CANCEL, ops.RunCancel(run_id=run_id))
        self.write(f"cancel requested (run {', '.join(self._mine)})", "yellow")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value  # (the line is empty already: ModeInput)
        if self.mode == "CHT":
            tab = self.tiki.view.tab_id
            if tab is None:
                self.write("no active tab", "red")
                return
            self.cht.add(tab, text)
        elif self.mode == "AI":
            self.submit_ai(text.strip())

    def submit_ai(self, text: str) -> None:
        if not text or not self.tiki.has_coordinator:
            return
        if text == "/reset":
            self.tiki.client.call(ops.AGENT_RESET, {})
            self.write("new AI session: the coordinator forgot the conversation", "cyan")
            return
        self.write(Text.assemble(("you ", "bold"), text))
        self._asked.append(text)  # before sending: its `queued` event may come back at once
        self.tiki.client.ask(text)  # progress arrives as `run` events

    # -- coordinator progress ------------------------------------------------------------------

    def set_status(self, text: str) -> None:
        self.query_one("#agent-status", Label).update(text)

    def show_run_event(self, data: dict[str, Any]) -> None:
        """Coordinator progress (a run event's JSON), in the same words as `tiki ask`: loading,
        prompt and generation figures update the status line in place; each tool call becomes
        a card; corrections (with their cause) and compaction are noted; the answer (or the
        reason it stopped) and the run's figures end it. Another client's run is shown apart."""
        kind, run_id = data.get("kind"), str(data.get("run_id"))
        if kind in ("queued", "started") and run_id not in self._mine:
            mine = f"ui:{self.tiki.client.hello.get('session')}"  # what the host names this session's requests
            if data.get("source") == mine and data.get("prompt") in self._asked:
                self._asked.remove(data["prompt"])  # (this session's request: source "ui:<session>")
                self._mine.append(run_id)
            else:
                self._sources[run_id] = str(data.get("source"))
        if run_id not in self._mine:
            self._show_other(run_id, kind, data)
            return
        if kind in ("done", "error"):
            self._mine.remove(run_id)
        if kind == "queued" and data.get("behind"):
            self.write(f"queued behind run {data['behind']} ({data.get('behind_prompt', '')}); Esc drops it", "yellow")
        status = status_text(data)
        if status:
            self.set_status(f"coordinator: {status}")
        if kind == "started":
            self.set_status("coordinator: started")
        elif kind == "tool_end":
            self.write(tool_card(data))
        elif kind in ("correction", "compacted", "loading"):
            self.write(event_text(data) or "", "yellow" if kind == "correction" else "dim")
        elif kind == "done":
            self.set_status("")
            self.write(Text.assemble(("coordinator ", "bold green"), str(data.get("message", ""))))
            if (warning := unasked_text(data)) is not None:
                self.write(f"! {warning}", "yellow")
            self.write(event_text(data) or "", "dim")
        elif kind == "error":
            self.set_status("")
            self.write(f"coordinator stopped: {data.get('reason')}", "red")
            self.write(event_text(data) or "", "dim")

    def show_earlier_run(self, data: dict[str, Any]) -> None:
        """A run event from the host's backlog: from before this UI attached, so another's."""
        run_id = str(data.get("run_id"))
        self._sources.setdefault(run_id, "earlier")
        self._show_other(run_id, data.get("kind"), data)

    def _show_other(self, run_id: str, kind: Any, data: dict[str, Any]) -> None:
        """Another client's run: its request, tool cards and end, each labelled, never in the
        status line (that is this panel's run's)."""
        source = self._sources.get(run_id, "")
        who = ("earlier run" if source == "earlier" else "another UI's run" if source.startswith("ui:") else
               {"cli": "another client's run"}.get(source, f"{source or 'another'} run"))
        label = f"{who} {run_id}"
        if kind == "started":
            self.write(Text.assemble((f"{label} ", "bold magenta"), str(data.get("prompt", ""))[:300]))
        elif kind == "tool_end":
            self.write(tool_card(data, label))
        elif kind in ("correction", "compacted", "loading"):
            self.write(f"{label}: {event_text(data) or ''}", "dim")
        elif kind in ("done", "error"):
            self._sources.pop(run_id, None)
            end = f"answered: {data.get('message', '')}" if kind == "done" else f"stopped: {data.get('reason')}"
            self.write(f"{label} {end}", "magenta")
