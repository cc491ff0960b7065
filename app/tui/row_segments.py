"""A row of a screen frame (`[[text, sgr], ...]`, protocol/README.md) as Rich segments: how
the terminal view draws it, through Textual or straight to the terminal (direct_paint)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.cells import cell_len
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style

from ...terminals.rows import cell_style


def _rich_color(color: Any) -> RichColor | None:
    if color is None:
        return None
    if isinstance(color, tuple):
        return RichColor.from_rgb(*color)
    return RichColor.from_ansi(color)


@lru_cache(maxsize=4096)
def rich_style(sgr: str) -> Style:
    """The Rich style of a frame segment's SGR parameters ("" is the default)."""
    style = cell_style(sgr)
    return Style(color=_rich_color(style.fg), bgcolor=_rich_color(style.bg), bold=style.bold or None,
                 dim=style.faint or None, italic=style.italic or None, underline=style.underline or None,
                 strike=style.strike or None, blink=style.blink or None, reverse=style.inverse or None)


def row_segments(line: Any) -> tuple[list[Segment], int]:
    """A frame row's [text, sgr] pieces as Rich segments, and how many cells they take."""
    segments = [Segment(text, rich_style(sgr)) for text, sgr in line]
    return segments, sum(len(text) if text.isascii() else cell_len(text) for text, _ in line)


__all__ = ["rich_style", "row_segments"]
