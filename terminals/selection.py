"""Selecting text on a tab's screen and its history, and the text a selection copies.

Rows are numbered over the history and the screen together (0 is the oldest history line).
Each `Row` is one cell per column -- `""` for the right half of a wide character -- and says
whether it is *wrapped* (the line went on to the next row because it was too long, so copying
joins the two without a newline). A `Selection` starts at a point (a click), is extended to
another (a drag), by character, by word (a double click) or by whole lines (a triple click);
it never splits a wide character, and `text()` is what a terminal copies: each line's trailing
blanks dropped, wrapped rows joined.

`rows_from_screen` builds rows from a `Screen`; `row_from_text` from the text of a styled row
(what the UI receives), splitting it into cells as Rich measures it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, NamedTuple, Sequence

Mode = Literal["char", "word", "line"]
# Characters that belong to a word besides letters and digits: paths, URLs, options.
WORD_EXTRA = frozenset("_-./~:@%+#?&=")


@dataclass(frozen=True)
class Row:
    cells: tuple[str, ...]
    wrapped: bool = False


class Point(NamedTuple):
    row: int
    col: int


def row_from_text(text: str, width: int, wrapped: bool = False) -> Row:
    """A row from its text as the UI draws it (one string; wide characters once)."""
    from rich.cells import split_graphemes

    spans, _total = split_graphemes(text)
    cells: list[str] = []
    for start, end, cell_width in spans:
        if cell_width == 0 and cells:
            cells[-1 if cells[-1] else -2] += text[start:end]
            continue
        cells.append(text[start:end])
        cells.extend([""] * (cell_width - 1))
    cells = cells[:width] + [" "] * (width - len(cells))
    return Row(tuple(cells), wrapped)


def rows_from_screen(screen) -> list[Row]:
    """The history lines kept with their cells, then the screen, as rows (for a `Screen`)."""
    from avt.util import TextUnwrapper

    from .clusters import restore

    plain, lines = screen.cell_lines()
    rows = [row_from_text(text, screen.cols) for text in plain]
    for line in lines:
        unwrapper = TextUnwrapper()
        cells = tuple(restore(cell.char) if cell.width else "" for cell in line.cells)
        rows.append(Row(cells, unwrapper.push(line) is None))  # None: the line goes on below
    return rows


def _kind(cell: str) -> int:
    if not cell.strip():
        return 0
    return 1 if cell[0].isalnum() or cell[0] in WORD_EXTRA or ord(cell[0]) > 0x2000 else 2


class Selection:
    def __init__(self, row: Callable[[int], Row], count: Callable[[], int]) -> None:
        """`row(i)` gives row i; `count()` how many rows there are now."""
        self._row, self._count = row, count
        self.anchor = self.head = Point(0, 0)
        self.mode: Mode = "char"
        self.active = False

    @classmethod
    def over(cls, rows: Sequence[Row]) -> "Selection":
        return cls(rows.__getitem__, rows.__len__)

    def start(self, point: Point, mode: Mode = "char") -> None:
        self.anchor = self.head = self._clamp(point)
        self.mode, self.active = mode, True

    def extend(self, point: Point) -> None:
        if self.active:
            self.head = self._clamp(point)

    def clear(self) -> None:
        self.active = False

    def _clamp(self, point: Point) -> Point:
        last = max(0, self._count() - 1)
        row = min(max(point.row, 0), last)
        width = len(self._row(row).cells) if self._count() else 1
        return Point(row, min(max(point.col, 0), max(0, width - 1)))

    # -- the range ---------------------------------------------------------------------------

    def bounds(self) -> tuple[Point, Point]:
        """First and last cell selected (inclusive), whole characters, words or lines."""
        start, end = sorted((self.anchor, self.head))
        if self.mode == "line":
            while start.row > 0 and self._row(start.row - 1).wrapped:
                start = Point(start.row - 1, 0)
            while self._row(end.row).wrapped and end.row + 1 < self._count():
                end = Point(end.row + 1, 0)
            return Point(start.row, 0), Point(end.row, len(self._row(end.row).cells) - 1)
        if self.mode == "word":
            start, end = self._word_start(start), self._word_end(end)
        cells = self._row(start.row).cells
        if start.col > 0 and cells[start.col] == "":  # the right half: take the character whole
            start = Point(start.row, start.col - 1)
        cells = self._row(end.row).cells
        if end.col + 1 < len(cells) and cells[end.col + 1] == "":
            end = Point(end.row, end.col + 1)
        return start, end

    def contains(self, row: int, col: int) -> bool:
        if not self.active:
            return False
        start, end = self.bounds()
        return start <= Point(row, col) <= end

    def _step(self, point: Point, delta: int) -> Point | None:
        """The cell before/after `point`, across a wrapped row's end; None at a line's end."""
        cells = self._row(point.row).cells
        col = point.col + delta
        if 0 <= col < len(cells):
            return Point(point.row, col)
        if delta > 0 and self._row(point.row).wrapped and point.row + 1 < self._count():
            return Point(point.row + 1, 0)
        if delta < 0 and point.row > 0 and self._row(point.row - 1).wrapped:
            return Point(point.row - 1, len(self._row(point.row - 1).cells) - 1)
        return None

    def _cell(self, point: Point) -> str:
        cells = self._row(point.row).cells
        cell = cells[point.col]
        return cells[point.col - 1] if cell == "" and point.col > 0 else cell

    def _word_start(self, point: Point) -> Point:
        kind = _kind(self._cell(point))
        while (prev := self._step(point, -1)) is not None and _kind(self._cell(prev)) == kind and kind != 2:
            point = prev
        return point

    def _word_end(self, point: Point) -> Point:
        kind = _kind(self._cell(point))
        while (nxt := self._step(point, 1)) is not None and _kind(self._cell(nxt)) == kind and kind != 2:
            point = nxt
        return point

    # -- what it copies ----------------------------------------------------------------------

    def text(self) -> str:
        if not self.active:
            return ""
        start, end = self.bounds()
        out: list[str] = []
        for number in range(start.row, end.row + 1):
            row = self._row(number)
            first = start.col if number == start.row else 0
            last = end.col if number == end.row else len(row.cells) - 1
            piece = "".join(row.cells[first:last + 1])
            joined = row.wrapped and number != end.row
            out.append(piece if joined else piece.rstrip() + ("\n" if number != end.row else ""))
        return "".join(out)
