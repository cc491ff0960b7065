"""Searching a tab's history and screen, as scrollback mode does: `/` forward, `?` backward,
`n` the next match the same way, `N` the other way; the search wraps at either end (tmux's
`wrap-search`), and is case-insensitive unless the query has a capital (smart case).

Rows are `selection.Row`s numbered over history and screen (0 is the oldest). A line that
wrapped over several rows is searched as one, so a match may span a wrap; a match is given
as its first and last cell, whole wide characters included. `indicator` is the position text
scrollback mode shows, `[120/10000]`: lines scrolled back over lines of history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .selection import Point, Row


@dataclass(frozen=True)
class Match:
    start: Point  # first cell of the match
    end: Point  # last cell (inclusive; the right half of a wide character when it ends on one)


def indicator(scrolled_back: int, history: int) -> str:
    return f"[{scrolled_back}/{history}]"


class Search:
    def __init__(self, row: Callable[[int], Row], count: int) -> None:
        self._row, self._count = row, count
        # first row -> the logical line's text and its last row. Only the text is kept: where
        # each character sits is worked out for the lines that match (`_where`). Building it
        # for every cell of a full history held the UI ~1.5 s per search (10,000 lines).
        self._lines: dict[int, tuple[str, int]] = {}
        self._wraps: dict[int, bool] = {}  # row -> it goes on in the next row (as read so far)
        self.query = ""
        self.backward = False
        self.current: Match | None = None

    def search(self, query: str, origin: Point, backward: bool = False) -> Match | None:
        """`/query` (or `?query` when `backward`) from `origin` (the cursor or the last match)."""
        self.query, self.backward = query, backward
        self.current = self._find(origin, backward)
        return self.current

    def next(self) -> Match | None:
        """`n`: the next match in the search's direction (`N`: `previous`)."""
        return self._again(self.backward)

    def previous(self) -> Match | None:
        return self._again(not self.backward)

    def _again(self, backward: bool) -> Match | None:
        if not self.query:
            return None
        origin = self.current.start if self.current else Point(self._count - 1, 0)
        self.current = self._find(origin, backward) or self.current
        return self.current

    # -- matching -------------------------------------------------------------------------

    def _wrapped(self, row: int) -> bool:
        if row not in self._wraps:
            self._wraps[row] = self._row(row).wrapped
        return self._wraps[row]

    def _first_row(self, row: int) -> int:
        while row > 0 and self._wrapped(row - 1):
            row -= 1
        return row

    def _line(self, first: int) -> tuple[str, int]:
        """The logical line starting at row `first`: its text and its last row."""
        if first not in self._lines:
            parts: list[str] = []
            row = first
            while True:
                current = self._row(row)
                self._wraps[row] = current.wrapped
                parts.append("".join(current.cells))  # ("" for a wide character's right half)
                if not current.wrapped or row + 1 >= self._count:
                    break
                row += 1
            self._lines[first] = ("".join(parts), row)
        return self._lines[first]

    def _where(self, first: int, last: int) -> list[Point]:
        """The cell of each character of the line over rows `first`..`last`."""
        return [Point(row, col) for row in range(first, last + 1)
                for col, cell in enumerate(self._row(row).cells) for _char in cell]

    def _next_line(self, first: int, backward: bool) -> int:
        if backward:
            return self._first_row(first - 1) if first > 0 else self._first_row(self._count - 1)
        row = first
        while self._wrapped(row) and row + 1 < self._count:
            row += 1
        return row + 1 if row + 1 < self._count else 0

    def _find(self, origin: Point, backward: bool) -> Match | None:
        if not self.query or self._count == 0:
            return None
        fold = self.query == self.query.lower()
        query = self.query.lower() if fold else self.query
        first = self._first_row(min(origin.row, self._count - 1))
        start = first
        for lap in range(2):  # the origin's line is looked at again, on its other side, at the end
            while True:
                text, last = self._line(first)
                text = text.lower() if fold else text
                if query in text:
                    hit = self._in_line(text, query, self._where(first, last), origin, backward,
                                        first == start and lap == 0, first == start and lap == 1)
                    if hit is not None:
                        return hit
                first = self._next_line(first, backward)
                if first == start:
                    break
        return None

    def _in_line(self, text: str, query: str, where: list[Point], origin: Point, backward: bool,
                 after_origin: bool, before_origin: bool) -> Match | None:
        """The match in one line nearest `origin` in the search direction; on the origin's line
        only those past the origin (first lap) or, after wrapping around, those before it."""
        found = []
        index = text.find(query)
        while index >= 0:
            found.append(index)
            index = text.find(query, index + 1)
        if backward:
            found.reverse()
        for index in found:
            point = where[index]
            if after_origin and not (point < origin if backward else point > origin):
                continue
            if before_origin and not (point >= origin if backward else point <= origin):
                continue
            end = where[index + len(query) - 1]
            cells = self._row(end.row).cells
            if end.col + 1 < len(cells) and cells[end.col + 1] == "":
                end = Point(end.row, end.col + 1)
            return Match(point, end)
        return None
