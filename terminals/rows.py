"""Styled rows of a pyavt screen, built fast: what a UI draws.

pyavt's Python API offers a row's cells one Python object at a time (`line.cells`, or
`line.chunks(predicate)` calling a Python predicate per cell pair): ~150 us per 140-column row,
which made styling a busy tab's rows most of its cost. `Vt.dump()` instead renders the whole
screen in Rust as text with SGR pen changes (~2.5 us per row), and `line.text` gives a row's
characters (~1 us). `view_rows` walks the dump once, cutting it into rows by those known row
texts, so wrapped rows, wide characters and REP-compressed runs need no width tables here.

Dump layout (pyavt 0.1 / avt): the primary buffer's rows (`\\r\\n` after every row that is not
wrapped; a pen change is `ESC [ 0;... m`, never empty; a run of one character may be
`c ESC [ n b`), then state sequences introduced by `ESC [ m` or C1 CSI (U+009B); on the
alternate screen `CSI ? 1047 h CSI 1;1 H` and the alternate buffer's rows follow (also after
leaving it, then switched back by `CSI ? 1047 l`). Trailing
default-blank rows are left out. Any row whose walked text disagrees with its `line.text`
is built the slow way instead (`styled_line`), so a dump format change degrades speed, never
correctness.

A style is an SGR parameter string as avt writes it ("" default, "1;31", "38:5:45",
"38:2:255:128:0"); `cell_style` turns it into a `CellStyle` (cached).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Union

import avt

from . import cellfit
from .clusters import avt_width

Color = Union[int, tuple[int, int, int]]


@dataclass(frozen=True, slots=True)
class CellStyle:
    fg: Color | None = None
    bg: Color | None = None
    bold: bool = False
    faint: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    blink: bool = False
    inverse: bool = False


DEFAULT_STYLE = CellStyle()
Segment = tuple[str, CellStyle]  # a run of cells in one style; a wide character appears once
StyledLine = tuple[Segment, ...]

_ALT_START = "\x9b?1047h\x9b1;1H"
_ALT_END = "\x9b?1047l"  # back to the primary screen: the alternate part was only saved state
# Between text: a pen change (SGR), a REP, a row break, or a C1 CSI / other ESC sequence.
_SPLIT = re.compile(r"(\x1b\[[0-9;:]*[mb]|\r\n|\x9b[0-9;:?]*[ -/]*[@-~]|\x1b[^\[])")
_FLAGS = {"1": "bold", "2": "faint", "3": "italic", "4": "underline", "5": "blink", "7": "inverse",
          "9": "strike"}


# -- styles -----------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def cell_style(sgr: str) -> CellStyle:
    """The CellStyle of an SGR parameter string from avt's dump."""
    fields: dict[str, object] = {}
    parts = [p for p in sgr.split(";") if p]
    for part in parts:
        if part == "0":
            fields.clear()
        elif part in _FLAGS:
            fields[_FLAGS[part]] = True
        elif ":" in part:
            numbers = [int(n or 0) for n in part.split(":")]
            target = "fg" if numbers[0] == 38 else "bg" if numbers[0] == 48 else None
            if target and len(numbers) >= 3 and numbers[1] == 5:
                fields[target] = numbers[2]
            elif target and len(numbers) >= 5 and numbers[1] == 2:
                fields[target] = (numbers[2], numbers[3], numbers[4])
        elif part.isdigit():
            code = int(part)
            if 30 <= code <= 37 or 90 <= code <= 97:
                fields["fg"] = code - 30 if code < 90 else code - 82
            elif 40 <= code <= 47 or 100 <= code <= 107:
                fields["bg"] = code - 40 if code < 100 else code - 92
    return CellStyle(**fields) if fields else DEFAULT_STYLE  # type: ignore[arg-type]


def _color_sgr(color: Color, base: int) -> str:
    if isinstance(color, tuple):
        return f"{base + 8}:2:{color[0]}:{color[1]}:{color[2]}"
    if color < 8:
        return str(base + color)
    if color < 16:
        return str(base + 60 + color - 8)
    return f"{base + 8}:5:{color}"


@lru_cache(maxsize=4096)
def sgr_of(style: CellStyle) -> str:
    """The SGR parameter string of a style ("" for the default): what the UI protocol sends."""
    if style == DEFAULT_STYLE:
        return ""
    parts = [code for code, name in _FLAGS.items() if getattr(style, name)]
    if style.fg is not None:
        parts.append(_color_sgr(style.fg, 30))
    if style.bg is not None:
        parts.append(_color_sgr(style.bg, 40))
    return ";".join(parts)


# -- the slow path: one row from its cells ------------------------------------------------------

def _color(color: Any) -> Color | None:
    """A pyavt colour (None, `Color.Indexed(n)` or `Color.RGB(r, g, b)`, both indexable)."""
    if color is None:
        return None
    if isinstance(color, avt.Color.RGB):
        return (color[0], color[1], color[2])
    return color[0]  # Indexed


def _style(pen: avt.Pen) -> CellStyle:
    if pen.is_default():
        return DEFAULT_STYLE
    return CellStyle(
        _color(pen.foreground), _color(pen.background), pen.bold, pen.faint, pen.italic,
        pen.underline, pen.strikethrough, pen.blink, pen.inverse,
    )


def styled_line(line: avt.Line) -> StyledLine:
    """One row from its cells: slow (a Python call per cell pair); for history rows and as
    the fallback of `view_rows`."""
    segments = []
    for chunk in line.chunks(lambda a, b: a.pen != b.pen):
        text = "".join(cell.char for cell in chunk if cell.width)  # width 0 = a wide char's spacer
        if text and not text.isascii():  # clusters back from placeholders, widths as Rich counts
            text = cellfit.fit((cell.char, cell.width) for cell in chunk)
        if text:
            segments.append((text, _style(chunk[0].pen)))
    return tuple(segments)


def wrapped_rows(lines: Any, wanted: Any) -> frozenset[int]:
    """Which of the rows `wanted` (indexes into `lines`, pyavt's) go on in the next one: a line
    longer than the screen, wrapped. A copy or a search joins them without a newline."""
    from avt.util import TextUnwrapper  # (push returns None while the line goes on)

    return frozenset(row for row in wanted if 0 <= row < len(lines) and TextUnwrapper().push(lines[row]) is None)


# -- the fast path: every row from one dump -----------------------------------------------------

def view_rows(vt: avt.Vt, wanted: set[int] | None = None) -> dict[int, StyledLine]:
    """Styled rows of the visible screen: all of them, or those in `wanted`."""
    view = vt.view()
    texts = [line.text for line in view]
    last = len(texts) - 1 if wanted is None else max(wanted, default=-1)
    rows = _walk(vt.dump(), texts, last)
    out: dict[int, StyledLine] = {}
    for row in (range(len(texts)) if wanted is None else sorted(wanted)):
        if row >= len(texts):
            continue
        segments = rows[row] if row < len(rows) else None
        if segments is None or "".join(text for text, _ in segments) != texts[row]:
            segments = styled_line(view[row])  # the dump did not say what we expected
        elif not texts[row].isascii():  # as styled_line does: clusters restored, widths fitted
            segments = tuple([(text if text.isascii() else _fit(text), style) for text, style in segments])
        out[row] = segments
    return out


def _fit(text: str) -> str:
    """A dump segment's text (one character per cell, wide ones once) restored and fitted."""
    return cellfit.fit((char, avt_width(char)) for char in text)


def _walk(dump: str, texts: list[str], last: int) -> list[StyledLine | None]:
    """Cut the dump into rows 0..last by their known texts (see the module docstring). Written
    for speed: one pass, string compares only; styles are looked up once per segment."""
    start = dump.rfind(_ALT_START)
    if start >= 0 and _ALT_END not in dump[start:]:  # the alternate screen is the one shown
        dump = dump[start + len(_ALT_START):]
    last = min(last, len(texts) - 1)
    rows: list[StyledLine | None] = []
    if last < 0:
        return rows
    sgr = ""
    segments: list[list[str]] = []  # [text, sgr] pairs of the row being built
    need = len(texts[0])
    previous = ""  # the last character written (what a REP repeats)
    is_text = False
    for part in _SPLIT.split(dump):
        is_text = not is_text  # split() alternates: text, separator, text, ...
        if not part:
            continue
        if is_text:
            text = part
        else:
            final = part[-1]
            if final == "m" and part[0] == "\x1b":
                if len(part) == 3:
                    break  # `ESC [ m` opens the state trailer: the remaining rows are blank
                sgr = part[2:-1]
                continue
            if final == "b" and part[0] == "\x1b":
                text = previous * int(part[2:-1] or 1)
            elif part == "\r\n":
                continue
            else:
                break  # a C1 CSI or other state sequence: the rows are over
        previous = text[-1]
        while True:
            size = len(text)
            take = text if size <= need else text[:need]
            if segments and segments[-1][1] == sgr:
                segments[-1][0] += take
            else:
                segments.append([take, sgr])
            if size < need:
                need -= size
                break
            # the row is complete; the rest of `text` goes on in the next (wrapped) row
            rows.append(tuple([(t, cell_style(s)) for t, s in segments]))
            segments = []
            if len(rows) > last:
                return rows
            need = len(texts[len(rows)])
            text = text[len(take):]
            if not text:
                break
    if segments:  # a row cut short by the trailer: the caller rebuilds it from its cells
        rows.append(None)
    while len(rows) <= last:
        text = texts[len(rows)]
        rows.append(((text, DEFAULT_STYLE),) if not text.strip() else None)
    return rows
