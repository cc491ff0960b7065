"""The visible screen cell by cell, with attributes and modes, as plain JSON-able data.

What `tiki terminal-read --cells` prints and what the fidelity suite compares with tmux: one
entry per cell (the right half of a wide character is `""`), each with an index into a table
of styles, plus the cursor, the title and the modes the program set.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .clusters import restore
from .rows import _style
from .screen import Screen


def grid(screen: Screen) -> dict[str, Any]:
    styles: list[dict[str, Any]] = []
    index: dict[Any, int] = {}
    rows = []
    for line in screen.view_lines():
        row = []
        for cell in line.cells:
            style = _style(cell.pen)
            if style not in index:
                index[style] = len(styles)
                styles.append({k: list(v) if isinstance(v, tuple) else v for k, v in asdict(style).items()})
            row.append([restore(cell.char) if cell.width else "", index[style]])
        rows.append(row)
    cursor_row, cursor_col, visible = screen.cursor
    return {
        "cols": screen.cols, "rows": screen.rows,
        # in the pending-wrap state pyavt puts the cursor one past the last column
        "cursor": {"row": cursor_row, "col": min(cursor_col, screen.cols - 1), "visible": visible},
        "title": screen.title, "modes": asdict(screen.modes), "styles": styles, "cells": rows,
    }
