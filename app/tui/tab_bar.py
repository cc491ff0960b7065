"""The tab bar: every tab's number, name and badges (needs you / done, set by notify.py;
running/exited, idle/busy, handshake), and a `PREFIX` mark while tikitaka waits for the key
after the prefix. A click on a tab shows it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
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
        self.spans: list[tuple[int, int, int]] = []  # (first column, end column, tab id) as drawn
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
        head = Text()
        if self.prefix_pending:
            head.append(f" {self.prefix_label} … ", style="bold reverse yellow")
        pieces = [self._piece(number, tab) for number, tab in enumerate(self.tabs, start=1)]
        tail = Text(f"  {self.prefix_label} ? help", style="dim") if self.prefix_label and not self.prefix_pending else Text()
        first, last = self._window(pieces, head.cell_len + tail.cell_len)
        text = head
        self.spans = []
        if first > 0:
            text.append(f"◂{first} ", style="bold yellow")
        for index in range(first, last):
            piece = pieces[index]
            self.spans.append((text.cell_len, text.cell_len + piece.cell_len - 1, self.tabs[index].id))
            text.append_text(piece)
        if last < len(pieces):
            text.append(f" {len(pieces) - last}▸", style="bold yellow")
        text.append_text(tail)
        self.update(text)

    def _piece(self, number: int, tab: Any) -> Text:
        text = Text(f" {number} {tab.name} ", style="bold reverse" if tab.id == self.active_id else "bold")
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
        return text

    def _window(self, pieces: list[Text], used: int) -> tuple[int, int]:
        """The tabs [first, last) that fit beside `used` columns, the active one among them
        (room is kept for the "◂3" and "4▸" marks that say more tabs exist)."""
        width = self.size.width or 10_000
        if used + sum(p.cell_len for p in pieces) <= width:
            return 0, len(pieces)
        room = max(0, width - used - 8)
        ids = [tab.id for tab in self.tabs]
        active = ids.index(self.active_id) if self.active_id in ids else 0
        first, last = active, active + 1
        room -= pieces[active].cell_len
        while True:  # grow to the right first (the next tabs), then to the left
            if last < len(pieces) and pieces[last].cell_len <= room:
                room -= pieces[last].cell_len
                last += 1
            elif first > 0 and pieces[first - 1].cell_len <= room:
                first -= 1
                room -= pieces[first].cell_len
            else:
                return first, last

    def on_resize(self) -> None:
        self._draw()

    def on_click(self, event: events.Click) -> None:
        for start, end, tab_id in self.spans:
            if start <= event.x < end:
                event.stop()
                self.app.show_tab(tab_id)  # type: ignore[attr-defined]
                return
