"""What the outer terminal shows, cell by cell, so that the UI writes only the cells that change.

Textual draws whole rows again, often the whole screen, where little or nothing changed: a UI
starting (or attaching) drew the screen about three times over -- 28,787 bytes at 120x36,
where a tmux client attaching to a shell writes ~1,000 -- and a dialog's focus change, the
help, the panel moved or the zoom each wrote 16-33 KB at 140x45 (bench/README.md). A user
attaching over SSH pays for each. So the app keeps, row by row, the cells (a character and its
style) its updates wrote, and of each update writes the runs of cells that differ (two runs a
few cells apart as one: placing the cursor costs bytes too), a run of one style as one piece of
text. A run's trailing default blanks are erased (ECH) rather than written, as the view's own
rows are (`direct_paint`): default cells need no background-colour erase from the terminal.

Whatever else writes cells says so: the view's own paint of a row is recorded too (`paint`),
and is not written where the terminal shows it already; its scroll, and a row it paints only in
part, make the cells there unknown (`forget`); so do a resize and a resume from a stop, after
which the terminal may show anything, and prefix R, for what another program wrote there
(`reset`). An unknown cell is written.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.strip import Strip

from .cell_diff import Cell, changed_span, segments_of, to_cells

ERASE_FROM = 7  # default blanks at a run's end erased from this many on (`ESC[nX` is 4-6 bytes)


class Pieces(CompositorUpdate):
    """The runs of an update's cells that differ from what the terminal shows, each at its
    place: what `App._display` writes instead of Textual's own update."""

    def __init__(self, writes: list[tuple[int, int, int, str, bool]]) -> None:
        self.writes = writes  # (row, column, width, the run's terminal text, ends in an erase)

    def render_segments(self, console: Console) -> str:
        parts: list[str] = []
        cursor: tuple[int, int] | None = None  # where the last piece left it (an erase does not move it)
        for y, x, width, text, erased in self.writes:
            if cursor != (y, x):
                parts.append(f"\x1b[{y + 1};{x + 1}H")
            parts.append(text)
            # (Placed again after a piece with other than ASCII in it: where the terminal takes
            # a character as wider than Textual does -- East Asian ambiguous widths -- the next
            # piece would be off.)
            cursor = (y, x + width) if not erased and text.isascii() else None
        return "".join(parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Segment(self.render_segments(console))  # (Textual only renders updates to text)


GAP = 6  # equal cells between two changed runs written over, not skipped (placing the cursor costs 6-8 bytes)


class OuterCells:
    """The cells the terminal shows, row by row (the UI's thread only)."""

    def __init__(self) -> None:
        self.cells: dict[int, list[Cell | None]] = {}  # per row, by column; None: not known
        # per row: the view's own paint of it (`paint`), kept as written -- its cells are only
        # worked out when something else writes in that row (a frame of a flood costs no more)
        self.painted: dict[int, tuple[int, int, str, Sequence[Segment]]] = {}
        self.size: tuple[int, int] | None = None  # the screen's, as the last whole update drew it

    def reset(self) -> None:
        """The terminal may show anything now (resized, back from a stop): every cell is written."""
        self.cells.clear()
        self.painted.clear()
        self.size = None

    def paint(self, y: int, x: int, end: int, text: str, segments: Sequence[Segment]) -> list[tuple[int, list[Segment]]] | None:
        """The view paints `text` (from `segments`) over columns `x` to `end` of row `y`: None when
        the row is to be written whole, else the runs of it that the terminal does not show yet
        (none at all when its last paint there was the same). Taken as shown from here on."""
        painted = self.painted.get(y)
        if painted is not None and painted[:2] == (x, end):
            if painted[2] == text:
                return []
            self.painted[y] = (x, end, text, segments)  # (over the same cells: the last paint's need no working out)
            # The cells between what the two paints begin and end with alike (a spinner's glyph
            # and counter; the marks of two tabs' rows): found segment by segment, so a flood's
            # rows, new from their first segment, cost next to nothing here.
            span = changed_span(painted[3], segments)
            if span is None or span == (0, end - x):
                return None
            return [(x + span[0], list(Segment.divide(segments, span))[-1])] if span[0] < span[1] else []
        # Something else drew in the row last (Textual, a dialog closing over the view): the
        # cells are known, and only those that differ are written.
        runs = self.changes(y, x, segments)
        self.painted[y] = (x, end, text, segments)
        return runs

    def forget(self, x1: int, x2: int, rows: Iterable[int]) -> None:
        """Columns `x1` to `x2` of `rows` changed in a way not recorded (the view scrolled, or painted
        a row in part): unknown."""
        for y in rows:
            row = self._settle(y)
            row[x1:x2] = [None] * len(row[x1:x2])

    def _settle(self, y: int) -> list[Cell | None]:
        """Row `y`'s cells, the view's last paint of it worked in."""
        row = self.cells.setdefault(y, [])
        painted = self.painted.pop(y, None)
        if painted is not None:
            x, end, _text, segments = painted
            cells = to_cells(segments)
            _put(row, x, cells if cells is not None and len(cells) == end - x else [None] * (end - x))
        return row

    def changes(self, y: int, x: int, segments: Sequence[Segment]) -> list[tuple[int, list[Segment]]]:
        """The runs of `segments`, to be written from column `x` of row `y`, that the terminal
        does not show yet: (column, segments) each. They are taken as shown from here on."""
        row = self._settle(y)
        cells = to_cells(segments)
        if cells is None:  # (a control segment: written whole, and not known after)
            _put(row, x, [None] * sum(segment.cell_length for segment in segments))
            return [(x, list(segments))]
        old = row[x:x + len(cells)]
        differs = [index >= len(old) or old[index] != cell for index, cell in enumerate(cells)]
        for index, cell in enumerate(cells):  # (a wide character's two halves go together)
            if cell[0] == "" and index and (differs[index] or differs[index - 1]):
                differs[index] = differs[index - 1] = True
        after = row[x + len(cells)] if x + len(cells) < len(row) else None
        _put(row, x, cells)
        runs: list[tuple[int, int]] = []
        for index, changed in enumerate(differs):
            if not changed:
                continue
            if runs and index - runs[-1][1] <= GAP:
                runs[-1] = (runs[-1][0], index + 1)
            else:
                runs.append((index, index + 1))
        for first, last in runs:  # (a wide character the terminal showed, cut by a run: it erases all of it)
            start = old[first] if first < len(old) else None
            if start is not None and start[0] == "" and x + first:
                row[x + first - 1] = None
            beyond = old[last] if last < len(old) else after
            if beyond is not None and beyond[0] == "" and x + last < len(row):
                row[x + last] = None
        return [(x + first, segments_of(cells[first:last])) for first, last in runs]

    def trim(self, update: LayoutUpdate | ChopsUpdate, console: Console) -> Pieces:
        """The cells of `update` the terminal does not show yet; they are taken as shown from
        here on."""
        if isinstance(update, LayoutUpdate):
            size = (update.region.width, update.region.height)
            if size != self.size:
                self.reset()
                self.size = size
        color_system = console._color_system or ColorSystem.TRUECOLOR  # (as `Strip.render` takes it)
        writes: list[tuple[int, int, int, str, bool]] = []
        for y, x, strip in _pieces(update):
            for column, segments in self.changes(y, x, list(strip)):
                text, erased = segments_text(segments, color_system)
                writes.append((y, column, sum(segment.cell_length for segment in segments), text, erased))
        return Pieces(writes)


def _put(row: list[Cell | None], x: int, cells: Sequence[Cell | None]) -> None:
    if len(row) < x + len(cells):
        row.extend([None] * (x + len(cells) - len(row)))
    row[x:x + len(cells)] = cells


def _pieces(update: LayoutUpdate | ChopsUpdate) -> Iterator[tuple[int, int, Strip]]:
    """(row, column, strip) of each piece `update` writes, as Textual's `render_segments` of
    each kind writes them: a whole update every chop of every row; a partial one the chops
    its spans touch, the ones a span's end cuts cropped there."""
    if isinstance(update, LayoutUpdate):
        for y, line in enumerate(update.strips, update.region.y):
            x = update.region.x
            for strip in line:
                yield y, x, strip
                x += strip.cell_length
        return
    for y, x1, x2 in update.spans:
        for end, (x, chop) in zip(update.chop_ends[y], update.chops[y].items()):
            if chop is None or x > x2 or end <= x1:
                continue
            yield y, x, chop if x2 > x >= x1 and end <= x2 else chop.crop(0, min(end, x2) - x)


class TrimmedDisplay:
    """Mixed into the app, before `App`: Textual's updates go through `OuterCells` on their way
    to the terminal."""

    outer_cells: OuterCells

    def _display(self, screen: Any, renderable: Any) -> None:
        app: Any = self
        try:
            # (as `App._display` decides whether it writes at all: an update it drops changes nothing)
            writes = (not app._batch_count and app._running and not app._closed and not app.is_headless
                      and app._driver is not None and not app._driver.is_inline)
            if writes and isinstance(renderable, (LayoutUpdate, ChopsUpdate)):
                renderable = self.outer_cells.trim(renderable, app.console)
            elif writes and renderable is not None:
                self.outer_cells.reset()
        except (AttributeError, TypeError, ValueError):  # (Textual's insides moved: its own way, all of it)
            self.outer_cells.reset()
        super()._display(screen, renderable)  # type: ignore[misc]


def segments_text(segments: Sequence[Segment], color_system: ColorSystem) -> tuple[str, bool]:
    """`segments` as the terminal gets them (each styled run ends with a reset, as
    `Strip.render` writes them), and whether they end in an erase: their default blanks at the
    end erased, not written -- which leaves the cursor where the blanks begin."""
    blanks = trailing_blanks(segments, color_system)
    render = Strip.render_style
    text = "".join(text if style is None else render(style, text, color_system)
                   for text, style, _control in segments[:len(segments) - bool(blanks)])
    return (f"{text}\x1b[{blanks}X", True) if blanks else (text, False)


def trailing_blanks(segments: Sequence[Segment], color_system: ColorSystem) -> int:
    """How many default blanks end the piece (its last segment: spaces drawn with no colour or
    attribute), when erasing them is shorter than writing them; else 0."""
    if not segments:
        return 0
    text, style, control = segments[-1]
    if control or len(text) < ERASE_FROM or text.strip(" "):
        return 0
    if style is not None and Strip.render_style(style, text, color_system) != text:
        return 0
    return len(text)


__all__ = ["OuterCells", "Pieces", "TrimmedDisplay", "segments_text", "trailing_blanks"]
