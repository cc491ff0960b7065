"""The tab bar: every tab's number, name and badges (needs you / done, set by notify.py;
running/exited, idle/busy, handshake),
and a `PREFIX` mark while tikitaka waits for the key after the prefix."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from .notify import BADGES

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
        self.badges: dict[int, str] = {}  # tab id -> a key of notify.BADGES

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
        if self.prefix_pending:
            text.append(f" {self.prefix_label} … ", style="bold reverse yellow")
        for number, tab in enumerate(self.tabs, start=1):
            active = tab.id == self.active_id
            label = Text(f" {number} {tab.name} ", style="bold reverse" if active else "bold")
            text.append_text(label)
            if tab.id in self.badges:
                text.append(*BADGES[self.badges[tab.id]])
            if not tab.running:
                text.append(f"exited ({tab.exit_code}) ", style="red")
            else:
                text.append("busy " if tab.activity == "busy" else "idle ", style="yellow" if tab.activity == "busy" else "green")
            if tab.role == "peer":
                state = self.handshakes.get(tab.name.casefold(), "not_connected")
                text.append(f"[{HANDSHAKE_BADGE.get(state, state)}] ", style="cyan" if state == "connected" else "dim")
            text.append("│", style="dim")
        if self.prefix_label and not self.prefix_pending:
            text.append(f"  {self.prefix_label} ? help", style="dim")
        self.update(text)
