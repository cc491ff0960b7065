"""A run of screen cells as text that Rich (and so Textual) measures as exactly as many cells.

The screen's grid follows tmux and `wcwidth` (see `clusters`); the TUI draws each row as Rich
segments and lays them out with Rich's `cell_len`, which follows newer emoji rules: VS16 makes
a narrow symbol wide (`❤️` is 2 there, 1 in the grid), a skin-tone modifier joins the emoji
before it (`👍🏽` is 2 there, 4 in the grid). If the two disagree, everything after such a
character on the row moves. `fit` keeps the grid: a cluster Rich finds narrower is padded with
spaces after it, one it finds wider loses its VS16 (the text presentation, which is what the
grid's width means) or, failing that, is drawn as U+FFFD.
"""

from __future__ import annotations

from typing import Iterable

from rich.cells import cell_len

from .clusters import restore

VS16 = "\ufe0f"


def fit(cells: Iterable[tuple[str, int]]) -> str:
    """The text of cells given as (characters, grid width), measuring as their total width."""
    cells = [(restore(text), width) for text, width in cells if width]
    joined = "".join(text for text, _ in cells)
    want = sum(width for _, width in cells)
    if cell_len(joined) == want:
        return joined
    out: list[str] = []
    prev = ""
    for text, width in cells:
        got = _added(prev, text)
        if got != width and VS16 in text:
            plain = text.replace(VS16, "")
            if _added(prev, plain) <= width:
                text, got = plain, _added(prev, plain)
        if got > width or got < 0:
            text, got = "\ufffd" if width == 1 else "\ufffd ", width
            got = _added(prev, text)
        if got < width:
            text += " " * (width - got)
        out.append(text)
        prev = text
    fitted = "".join(out)
    if cell_len(fitted) != want:  # joins across cells we did not foresee: plain and safe
        return "".join(text if text.isascii() else "\ufffd" + " " * (width - 1) for text, width in cells)
    return fitted


def _added(prev: str, text: str) -> int:
    """The cells `text` adds after `prev` (it may join what came before)."""
    return cell_len(prev + text) - cell_len(prev) if prev else cell_len(text)
