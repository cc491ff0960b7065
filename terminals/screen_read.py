"""Reading back what a tab printed (mixed into `Screen`): pages of its scrollback, styled
(the UI's scrollback view) and its last lines as plain text (`terminal-read`, the
coordinator). The oldest history is plain text (`PlainHistory`), the rest pyavt's lines;
output held back under a flood is read from the held lines when they hold what is asked
(`screen_held`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import clusters, scroll_skip
from .rows import DEFAULT_STYLE, StyledLine, styled_line, wrapped_rows


class HistoryPage(NamedTuple):
    total: int  # history rows now
    offset: int  # rows above the screen's top the page starts (at most `total`)
    dropped: int  # `Screen.dropped`: the page's first row is numbered dropped + total - offset
    lines: list[StyledLine]
    screen: Any = None  # the screen at the same moment (a `ScreenUpdate`), when asked for
    wrapped: frozenset[int] = frozenset()  # indexes into `lines` of rows that go on in the next


class ScreenReads:
    _vt: Any
    _plain: Any
    _rows: int

    def history_page(self, offset: int, count: int, start: int | None = None, screen: bool = False) -> HistoryPage:
        """A page of history for a view scrolled `offset` rows up: up to `count` history rows
        from `offset` rows above the screen's top, oldest first -- or, given `start`, from the
        row numbered so (`Screen.dropped` + its index: where a view's top row is, wherever
        output has moved it since; the oldest kept when it was dropped). With `screen`, the
        screen as it is at the same moment too (`snapshot`): a view of both does not tear."""
        shown = self.snapshot() if screen else None  # type: ignore[attr-defined]
        dropped = self.dropped  # type: ignore[attr-defined]
        if self.alt_screen:  # type: ignore[attr-defined]
            return HistoryPage(0, 0, dropped, [], shown)
        self.settle()  # type: ignore[attr-defined]
        total = self.total_lines - self._rows  # type: ignore[attr-defined]  # an exact count, not the cached one
        if start is not None:
            offset = total - (start - dropped)
        offset = max(0, min(offset, total))
        first = total - offset
        stop = min(total, first + count)
        return HistoryPage(total, offset, dropped, self.history_lines(first, stop), shown,
                           self._history_wrapped(first, stop))

    def _history_wrapped(self, start: int, stop: int) -> frozenset[int]:
        """Which history rows [start, stop) go on in the next row, counted from `start`: from
        the plain history's marks for the older rows, from pyavt for those it still holds."""
        plain = len(self._plain)
        lines = self._vt.lines()
        first = max(start, plain)
        return frozenset([row - start for row in self._plain.wrapped(start, min(stop, plain))] +
                         [row + first - start for row in
                          wrapped_rows(lines[first - plain:stop - plain], range(max(0, stop - first)))])

    def history_lines(self, start: int, stop: int) -> list[StyledLine]:
        """Scrollback rows [start, stop), 0 being the oldest kept."""
        if self.alt_screen:  # type: ignore[attr-defined]
            return []
        self.settle()  # type: ignore[attr-defined]
        plain = len(self._plain)
        lines = self._vt.lines()
        history = plain + max(0, len(lines) - self._rows)
        start, stop = max(0, start), min(stop, history)
        rows: list[StyledLine] = [((text, DEFAULT_STYLE),) if text else () for text in self._plain.lines(start, stop)]
        if stop > plain:
            rows.extend(styled_line(line) for line in lines[max(start, plain) - plain : stop - plain])
        return rows

    def text(self, last_n: int = 40) -> str:
        """Plain text of the last `last_n` lines of scrollback and screen.

        Blank rows at the bottom (below both the cursor and the last printed row) are left
        out first, so a shell that printed three lines reads as three lines, not a screenful.
        """
        held = self._held_rows(last_n) if 0 < last_n <= self._rows else None  # type: ignore[attr-defined]
        if held is not None:  # the cursor is on the bottom row: these are the last rows
            return "\n".join(clusters.restore(scroll_skip.row_text(row)) for row in held)
        self._flush()  # type: ignore[attr-defined]
        lines = self._vt.view()
        texts: dict[int, str] = {}

        def row(index: int) -> str:  # only the rows asked for are turned into text
            if index not in texts:
                texts[index] = clusters.restore(lines[index].text.rstrip())
            return texts[index]

        keep = self._vt.cursor.row + 1
        for index in range(len(lines) - 1, keep - 1, -1):
            if row(index):
                keep = index + 1
                break
        if last_n <= keep or self.alt_screen:  # type: ignore[attr-defined]
            return "\n".join(row(i) for i in range(max(0, keep - last_n), keep))
        view = [row(i) for i in range(keep)]
        wanted = last_n - len(view)
        self.settle()  # type: ignore[attr-defined]
        scrollback = self._vt.lines()
        styled = [clusters.restore(line.text.rstrip()) for line in scrollback[: max(0, len(scrollback) - self._rows)]]
        history = styled[-wanted:]
        if len(history) < wanted:
            history = self._plain.last(wanted - len(history)) + history
        return "\n".join(history + view)

