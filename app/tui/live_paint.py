"""How a screen frame's changed rows reach the terminal (mixed into the terminal view): painted
at once (`direct_paint.paint_rows`), or scrolled by the terminal when the rows moved up
(`direct_paint.scroll_and_paint`), or left to Textual's compositor when neither can be done
safely.

The rows are the view's: the tab's row `top` and column `left` sit at its corner (`pan`). A tab
larger than the view (another UI, larger, was used last) is shown panned, the cursor in sight,
and was drawn again whole for every frame -- a smaller UI watching an agent stream wrote every
row it shows each time. Where the pan stays, or only moves down (the cursor went lower: the
rows move up, as in a scroll) or up, it is painted as an unpanned view is; a pan sideways or
one not yet drawn draws the view whole. Rows that moved without the history growing (a pager,
an editor) are told by the rows themselves (`_moved_by`) and scrolled too. `_pan_shown` is the pan the terminal shows the
view at: set where Textual draws the live rows (`_render_line`) and after a painted scroll.
"""

from __future__ import annotations

from typing import Any, cast

from rich.segment import Segment
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from .direct_paint import paint_rows, scroll_and_paint
from .row_segments import row_segments

MOVES = (1, -1, 2, -2, 3, -3, 4, -4, 5, -5)  # rows a pager or editor moves at a time, tried in this order


class LivePaintMixin:
    rows: list[list]
    cursor: Any
    tab_size: tuple[int, int]
    alt_screen: bool
    selection: Any
    exited: str | None
    size: Any
    refresh: Any
    pan: Any
    _pan_shown: tuple[int, int] | None
    _repaint_required: bool

    def paint_frame(self, frame: dict[str, Any], before: list[list] | None, grown: int) -> None:
        """Paint what `frame` changed; `before`: the rows as they were painted (None when they
        were of another tab or size), `grown`: how many lines the history grew by since."""
        width, height = self.size
        top, left = self.pan()
        shown_top = top  # the tab's row at the view's top in the terminal now
        if self.tab_size[1] > height or self.tab_size[0] > width:
            # (panned: see the module docstring)
            if self._pan_shown is None or self._pan_shown[1] != left:
                self.refresh()
                return
            shown_top = self._pan_shown[0]
        dirty = (range(height) if frame["full"] else
                 sorted(row for row in {int(row) - top for row in frame["lines"]} | {self.cursor[0] - top}
                        if 0 <= row < height))
        # (the cursor's row too, the only one a cursor move changes: the end of a paint is what
        # moves the terminal's cursor, and nothing is drawn for it where it was)
        if before is not None and self._scrolled(before, grown, dirty, (top, left), shown_top):
            self._pan_shown = (top, left)
            return
        if top != shown_top:
            self.refresh()
            return
        lines = self._live_lines(dirty, width, top, left)
        rest = [Region(0, row, width, 1) for row in dirty] if lines is None else paint_rows(cast(Widget, self), lines)
        if rest:  # (what a toast or tooltip shares, or all when it cannot be painted at once)
            self.refresh(*rest)

    def _scrolled(self, before: list[list], grown: int, dirty: Any, pan: tuple[int, int], shown_top: int) -> bool:
        """Painted as a scroll: the history grew by `grown` lines and the rows moved up with
        them -- and, panned, the pan moved from `shown_top` -- or, with neither, the rows tell a
        move (`_moved_by`); the terminal scrolls the view's rows itself and only the rows the
        scroll does not bring are written (`direct_paint.scroll_and_paint`). False: paint
        `dirty` (rows of the view) as ever."""
        top, left = pan
        width, height = self.size
        shown = min(len(self.rows) - top, height)  # the view's rows that show the tab's
        shown_before = min(len(before) - shown_top, height)
        if (self.alt_screen and grown) or self._repaint_required:
            return False  # (a repaint on its way: the terminal may not hold `before` yet)
        pan_moved = top != shown_top
        if not pan_moved and len(dirty) <= 2:
            return False  # (a line or two, the pan where it was: painted as they are)
        shift = grown + top - shown_top
        if not shift:  # (no history grew: a pager or an editor may have scrolled its rows)
            shift = self._moved_by(before, top, shown_top, min(shown, shown_before))
        if not 0 < abs(shift) < shown:
            return False
        moved = [before[shown_top + row + shift] if 0 <= row + shift < shown_before else None
                 for row in range(shown)]
        cursor = self.cursor[0] - top
        todo = sorted({row for row in range(shown) if self.rows[top + row] != moved[row]}
                      | ({cursor} if 0 <= cursor < shown else set()))
        if not pan_moved and len(todo) * 2 > len(dirty):
            return False  # (not worth it: most rows are new anyway)
        lines = self._live_lines(todo, width, top, left)
        return lines is not None and scroll_and_paint(cast(Widget, self), shift, shown, lines)

    def _moved_by(self, before: list[list], top: int, shown_top: int, shown: int) -> int:
        """How many rows the view's rows moved up (down: negative) since `before`, told by the
        rows that changed where they are and hold what a row that many away held (blank ones
        tell nothing): `less` moving a line and an editor scrolling print no history. 0: none
        found (a guess that is wrong costs rows painted, never a wrong screen: every row the
        scroll did not bring right is painted after it)."""
        rows = self.rows
        changed = [row for row in range(shown) if rows[top + row] and rows[top + row] != before[shown_top + row]]
        best, most = 0, 2  # (a move of the view needs more than two rows to tell it)
        for by in MOVES:
            alike = sum(1 for row in changed if 0 <= row + by < shown and rows[top + row] == before[shown_top + row + by])
            if alike > most:
                best, most = by, alike
        return best

    def _live_lines(self, rows: Any, width: int, top: int = 0, left: int = 0) -> list[tuple[int, list[Segment]]] | None:
        """The live screen's rows shown in the view's `rows` (the tab's row `top` and column
        `left` at its corner: `pan`) as segments as wide as the view, for `paint_rows`; None
        when the view shows something else over them (a selection, the exit banner)."""
        if self.selection is not None or self.exited:
            return None
        lines = []
        for y in rows:
            line = self.rows[y + top] if 0 <= y + top < len(self.rows) else ()
            segments, length = row_segments(line)
            if left or length > width:  # (panned: cut as `_strip` cuts)
                segments = list(Strip(segments, length).crop_extend(left, left + width, None))
            elif length < width:
                segments.append(Segment(" " * (width - length)))
            lines.append((y, segments))
        return lines
