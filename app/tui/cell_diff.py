"""One row's cells, and where two paints of the same cells differ: what `outer_cells` compares
to write only the cells the terminal does not show yet."""

from __future__ import annotations

from typing import Optional, Sequence

from rich.cells import get_character_cell_size
from rich.segment import Segment
from rich.style import Style

Cell = tuple[str, Optional[Style]]  # a character and its zero-width marks ("" for a wide one's right half), its style


def changed_span(old: Sequence[Segment], new: Sequence[Segment]) -> tuple[int, int] | None:
    """The cells [first, last) where `new` differs from `old` (two paints of the same cells),
    between the cells both begin with and those both end with; None when that is unclear (a
    control segment, a zero-width mark at either edge: it belongs to the character before it)."""
    start = _alike(old, new, reverse=False)
    end = _alike(old, new, reverse=True)
    width = sum(segment.cell_length for segment in new)
    if start is None or end is None or width != sum(segment.cell_length for segment in old):
        return None
    return start, max(start, width - end)


def _alike(old: Sequence[Segment], new: Sequence[Segment], reverse: bool) -> int | None:
    """How many cells `old` and `new` begin (or end) with alike, at a character's edge."""
    cells = 0
    pairs = zip(reversed(old), reversed(new)) if reverse else zip(old, new)
    for a, b in pairs:
        if a.control or b.control:
            return None
        if a == b:
            cells += a.cell_length
            continue
        if a.style != b.style:
            return cells if _clean_edge(a.text, b.text, 0, reverse) else None
        texts = (a.text[::-1], b.text[::-1]) if reverse else (a.text, b.text)
        same = 0
        for char_a, char_b in zip(*texts):
            if char_a != char_b:
                break
            same += 1
        if not _clean_edge(a.text, b.text, same, reverse):
            return None
        return cells + sum(get_character_cell_size(char) for char in texts[0][:same])
    return cells


def _clean_edge(a: str, b: str, same: int, reverse: bool) -> bool:
    """Whether the edge `same` characters into `a` and `b` (from their end, when `reverse`)
    is between two characters, not before a zero-width mark in either (nor after one, from
    the end: the mark's character would be cut from it)."""
    for text in (a, b):
        if reverse:
            edge = text[len(text) - same - 1] if same < len(text) else ""  # the last character not alike
            after = text[len(text) - same] if same else ""
            if (edge and not get_character_cell_size(edge)) or (after and not get_character_cell_size(after)):
                return False
        elif same < len(text) and not get_character_cell_size(text[same]):
            return False
    return True


def to_cells(segments: Sequence[Segment]) -> list[Cell] | None:
    """`segments` cell by cell; None where a control segment or a mark with no character before
    it makes that unclear."""
    cells: list[Cell] = []
    for text, style, control in segments:
        if control:
            return None
        for char in text:
            size = get_character_cell_size(char)
            if size == 1:
                cells.append((char, style))
            elif size == 2:
                cells += [(char, style), ("", style)]
            elif cells:  # a zero-width mark joins the character before it
                before, before_style = cells[-1 - (cells[-1][0] == "")]
                if before_style != style:
                    return None
                cells[-1 - (cells[-1][0] == "")] = (before + char, style)
            else:
                return None
    return cells


def segments_of(cells: Sequence[Cell]) -> list[Segment]:
    """Cells as segments, a run of one style each."""
    segments: list[Segment] = []
    text: list[str] = []
    style: Style | None = None
    for char, cell_style in cells:
        if text and cell_style != style:
            segments.append(Segment("".join(text), style))
            text = []
        text.append(char)
        style = cell_style
    if text:
        segments.append(Segment("".join(text), style))
    return segments


__all__ = ["Cell", "changed_span", "segments_of", "to_cells"]
