"""The tab bar: every tab's number, name and badges (running/exited, idle/busy, handshake),
and a `PREFIX` mark while tikitaka waits for the key after the prefix. A click on a tab shows it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Static

HANDSHAKE_BADGE = {"not_connected": "not connected", "handshake_sent": "handshake sent", "connected": "connected"}


class TabBar(Static):
    DEFAULT_CSS = "TabBar { height: 1; }"

    def __init__(self, prefix_label: str = "", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.tabs: list[Any] = []
        self.active_id: int | None = None
        self.handshakes: dict[str, str] = {}
        self.prefix_label = prefix_label
        self.prefix_pending = False
        self.spans: list[tuple[int, int, int]] = []  # (first column, end column, tab id) as drawn

    def set_tabs(self, tabs: list[Any], active_id: int | None) -> None:
        self.tabs, self.active_id = list(tabs), active_id
        self._draw()

    def set_handshake(self, name: str, state: str) -> None:
        self.handshakes[name.casefold()] = state
        self._draw()

    def set_prefix(self, pending: bool) -> None:
        if pending != self.prefix_pending:
            self.prefix_pending = pending
            self._draw()

    def _draw(self) -> None:
        text = Text()
        self.spans = []
        if self.prefix_pending:
            text.append(f" {self.prefix_label} … ", style="bold reverse yellow")
        for number, tab in enumerate(self.tabs, start=1):
            active = tab.id == self.active_id
            label = Text(f" {number} {tab.name} ", style="bold reverse" if active else "bold")
            start = text.cell_len
            text.append_text(label)
            if not tab.running:
                text.append(f"exited ({tab.exit_code}) ", style="red")
            else:
                text.append("busy " if tab.activity == "busy" else "idle ", style="yellow" if tab.activity == "busy" else "green")
            if tab.role == "peer":
                state = self.handshakes.get(tab.name.casefold(), "not_connected")
                text.append(f"[{HANDSHAKE_BADGE.get(state, state)}] ", style="cyan" if state == "connected" else "dim")
            self.spans.append((start, text.cell_len, tab.id))
            text.append("│", style="dim")
        if self.prefix_label and not self.prefix_pending:
            text.append(f"  {self.prefix_label} ? help", style="dim")
        self.update(text)

    def on_click(self, event: events.Click) -> None:
        for start, end, tab_id in self.spans:
            if start <= event.x < end:
                event.stop()
                self.app.show_tab(tab_id)  # type: ignore[attr-defined]
                return
