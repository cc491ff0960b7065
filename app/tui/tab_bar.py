"""The tab bar: every tab's number, name and badges (needs you / done, set by notify.py), its
agent state as the host says it (working, waiting, idle, starting; `busy` for a program no rule
describes while it prints) or that it exited, a peer's handshake, and a `PREFIX` mark while
tikitaka waits for the key after the prefix. A click on a tab shows it.

Tabs that do not fit are counted at either end ("◂3", "4▸"); a mark carries the most urgent
badge among the tabs it stands for (a tab off the bar that needs you must still be seen), and
a click on it shows that tab, else the nearest one it hides."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Static

from .notify import BADGES

URGENCY = ("waiting", "bell", "done")  # which badge a mark for hidden tabs carries, first found first
HANDSHAKE_BADGE = {"not_connected": "not connected", "handshake_sent": "handshake sent", "connected": "connected"}
# The agent states a running tab shows (terminals/agent_state); `unknown` shows the output's activity.
STATE_STYLE = {"working": "yellow", "waiting": "bold yellow", "idle": "green", "starting": "dim"}


def state_word(tab: Any) -> tuple[str, str] | None:
    """(word, style) for a running tab: its agent state, or `busy` for a program no rule
    describes (a full-screen program, `unknown`) while it prints; None when there is nothing to say."""
    state = (getattr(tab, "agent", None) or {}).get("state")
    if state in STATE_STYLE:
        return state, STATE_STYLE[state]
    return ("busy", "yellow") if tab.activity == "busy" else None


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
        self.marks: list[tuple[int, int, int]] = []  # the same for the marks of hidden tabs: the tab a click shows
        self.badges: dict[int, str] = {}  # tab id -> a key of notify.BADGES
        self._drawn: Text | None = None

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
        self.spans, self.marks = [], []
        if first > 0:
            self._mark(text, f"◂{first}", list(range(first - 1, -1, -1)), " ")
        for index in range(first, last):
            piece = pieces[index]
            self.spans.append((text.cell_len, text.cell_len + piece.cell_len - 1, self.tabs[index].id))
            text.append_text(piece)
        if last < len(pieces):
            text.append(" ")
            self._mark(text, f"{len(pieces) - last}▸", list(range(last, len(pieces))))
        text.append_text(tail)
        # (The host's tab list comes again at every state event, most saying what the bar says.
        # Redrawn, the bar is one row; with a layout pass, which its fixed size never needs,
        # Textual also drew the agent log's scrollbar down the screen: 1.8 KB to the terminal.)
        if text != self._drawn:
            self._drawn = text
            self.update(text, layout=False)

    def _mark(self, text: Text, count: str, hidden: list[int], after: str = "") -> None:
        """The mark for the tabs at `hidden` (nearest first): their count and the most urgent
        badge among them; a click shows that tab, else the nearest."""
        start = text.cell_len
        text.append(count, style="bold yellow")
        badged = [(URGENCY.index(badge), near, index) for near, index in enumerate(hidden)
                  if (badge := self.badges.get(self.tabs[index].id)) in URGENCY]
        shown = hidden[0]
        if badged:
            urgency, _near, shown = min(badged)  # the most urgent, the nearest of those
            label, style = BADGES[URGENCY[urgency]]
            text.append(" ")
            text.append(label.split()[0], style=style)  # ("! needs you" -> "!")
        text.append(after)
        self.marks.append((start, text.cell_len, self.tabs[shown].id))

    def _piece(self, number: int, tab: Any) -> Text:
        text = Text(f" {number} {tab.name} ", style="bold reverse" if tab.id == self.active_id else "bold")
        badge = self.badges.get(tab.id)
        if badge is not None:
            text.append(*BADGES[badge])
        if not tab.running:
            text.append(f"exited ({tab.exit_code}) ", style="red")
        elif (word := state_word(tab)) is not None and not (badge == word[0] == "waiting"):  # (said once)
            text.append(f"{word[0]} ", style=word[1])
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
        room = max(0, width - used - 12)  # (the marks, with a badge each: "◂3 ! ", " 4▸ !")
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
        for start, end, tab_id in self.spans + self.marks:
            if start <= event.x < end:
                event.stop()
                self.app.show_tab(tab_id)  # type: ignore[attr-defined]
                return
