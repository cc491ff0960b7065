"""What the outer terminal shows, piece by piece, so that Textual's updates write only the
pieces that changed.

Textual draws whole rows again, often the whole screen, where little or nothing changed: a UI
starting (or attaching) drew the screen about three times over -- 28,787 bytes at 120x36,
where a tmux client attaching to a shell writes ~1,000 -- and a dialog's focus change, the
help, the panel moved or the zoom each wrote 16-33 KB at 140x45 (bench/README.md). A user
attaching over SSH pays for each. So the app keeps, row by row, the pieces (chops: a widget's
part of a row) its updates wrote, and writes a piece again only where it differs. A piece's
trailing default blanks are erased (ECH) rather than written, as the view's own rows are
(`direct_paint`): default cells need no background-colour erase from the terminal.

Whatever else writes cells says so: the view's own paint of a row is a piece too (`wrote`), and
is skipped where the terminal shows it already (`shows`); its scroll, and a row it paints only
in part, make the pieces there unknown (`forget`); so do a resize and a resume from a stop,
after which the terminal may show anything, and prefix R, for what another program wrote there
(`reset`). An unknown piece is written.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.strip import Strip

ERASE_FROM = 7  # default blanks at a piece's end erased from this many on (`ESC[nX` is 4-6 bytes)


class Pieces(CompositorUpdate):
    """The pieces of an update that differ from what the terminal shows, each at its place:
    what `App._display` writes instead of Textual's own update."""

    def __init__(self, writes: list[tuple[int, int, int, str, bool]]) -> None:
        self.writes = writes  # (row, column, width, the piece's terminal text, ends in an erase)

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


class OuterCells:
    """The pieces the terminal shows, row by row (the UI's thread only)."""

    def __init__(self) -> None:
        # per row: the pieces the terminal shows, as an update wrote them, by column:
        # column -> (end column, terminal text)
        self.rows: dict[int, dict[int, tuple[int, str]]] = {}
        self.size: tuple[int, int] | None = None  # the screen's, as the last whole update drew it

    def reset(self) -> None:
        """The terminal may show anything now (resized, back from a stop): every piece is written."""
        self.rows.clear()
        self.size = None

    def wrote(self, y: int, x: int, end: int, text: str) -> None:
        """Something else wrote `text` over columns `x` to `end` of row `y` (the view's own paint
        of a row): a piece, as if an update had written it."""
        self._forget_row(y, x, end)
        self.rows.setdefault(y, {})[x] = (end, text)

    def shows(self, y: int, x: int, end: int, text: str) -> bool:
        """Whether the terminal shows `text` over columns `x` to `end` of row `y` already."""
        return self.rows.get(y, {}).get(x) == (end, text)

    def forget(self, x1: int, x2: int, rows: Iterable[int]) -> None:
        """Columns `x1` to `x2` of `rows` changed in a way not recorded (the view scrolled, or painted
        a row in part): unknown."""
        for y in rows:
            self._forget_row(y, x1, x2)

    def _forget_row(self, y: int, x1: int, x2: int) -> None:
        row = self.rows.get(y)
        if row:
            for x in [x for x, (end, _text) in row.items() if x < x2 and end > x1]:
                del row[x]

    def trim(self, update: LayoutUpdate | ChopsUpdate, console: Console) -> Pieces:
        """The pieces of `update` the terminal does not show yet; they are taken as shown from
        here on."""
        if isinstance(update, LayoutUpdate):
            size = (update.region.width, update.region.height)
            if size != self.size:
                self.reset()
                self.size = size
        writes: list[tuple[int, int, int, str, bool]] = []
        for y, x, strip in _pieces(update):
            width = strip.cell_length
            if not width:
                continue
            text, erased = piece_text(strip, console)
            if not self.shows(y, x, x + width, text):
                self.wrote(y, x, x + width, text)
                writes.append((y, x, width, text, erased))
        return Pieces(writes)


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


def piece_text(strip: Strip, console: Console) -> tuple[str, bool]:
    """A piece as the terminal gets it, and whether it ends in an erase (`segments_text`)."""
    color_system = console._color_system or ColorSystem.TRUECOLOR  # (as `Strip.render` takes it)
    segments: Sequence[Segment] = list(strip)
    if not trailing_blanks(segments, color_system):
        return strip.render(console), False  # (cached by the strip, which Textual keeps)
    return segments_text(segments, color_system)


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


__all__ = ["OuterCells", "Pieces", "TrimmedDisplay", "piece_text", "segments_text", "trailing_blanks"]
