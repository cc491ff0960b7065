"""tmux's `capture-pane -p -e -N` output as rows of cells, for the fidelity suite.

tmux prints each row's characters with the SGR codes that change the attributes from the cell
before (carried from row to row). A character's width is what tmux itself measures, glibc's
`wcwidth` (where it is not available, East Asian Width); a zero-width character and one after
a zero-width joiner join the cell before, as tmux stores them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import locale
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

DEFAULT = (None, None, False, False, False, False, False, False, False)
# tmux marks cells drawn in the DEC special graphics set with SO ... SI; their glyphs as xterm
# draws them.
_GRAPHICS = dict(zip(map(ord, "_`abcdefghijklmnopqrstuvwxyz{|}~"),
                     "\u00a0◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·"))
_SGR = re.compile(r"\x1b\[([0-9;:]*)m|\x1b[^\[]|\x1b\[[0-9;:?]*[A-Za-z]")


@dataclass(frozen=True)
class Cell:
    char: str
    style: tuple | None = DEFAULT  # None: not known (tmux does not print a row's cleared end)


# tmux leaves out the cleared cells at the end of a row, also those cleared in a colour (BCE):
# their characters are blanks, their attributes unknown.
UNKNOWN = Cell(" ", None)


def _libc_wcwidth() -> Any:
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.wcwidth.argtypes, libc.wcwidth.restype = [ctypes.c_wchar], ctypes.c_int
        return libc.wcwidth
    except (OSError, AttributeError, locale.Error):
        return None


_wcwidth = _libc_wcwidth()


def width(char: str) -> int:
    if _wcwidth is not None:
        measured = _wcwidth(char)
        if measured >= 0:
            return measured
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _apply(style: list[Any], params: str) -> None:
    codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            style[:] = DEFAULT
        elif code in (1, 2, 3, 4, 5, 7, 9):
            style[{1: 2, 2: 3, 3: 4, 4: 5, 9: 6, 5: 7, 7: 8}[code]] = True
            if code == 4 and ":" in params:  # 4:0 is "no underline"
                style[5] = codes[i + 1] != 0 if i + 1 < len(codes) else True
                i += 1
        elif code == 22:
            style[2] = style[3] = False
        elif code in (23, 24, 25, 27, 29):
            style[{23: 4, 24: 5, 25: 7, 27: 8, 29: 6}[code]] = False
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style[0] = code - 30 if code < 90 else code - 82
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style[1] = code - 40 if code < 100 else code - 92
        elif code in (39, 49):
            style[0 if code == 39 else 1] = None
        elif code in (38, 48) and i + 1 < len(codes):
            slot = 0 if code == 38 else 1
            if codes[i + 1] == 5 and i + 2 < len(codes):
                style[slot], i = codes[i + 2], i + 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                style[slot], i = tuple(codes[i + 2:i + 5]), i + 4
        i += 1


def parse_capture(text: str, cols: int, rows: int) -> list[list[Cell]]:
    style = list(DEFAULT)
    graphics = [False]  # between SO and SI (carried from row to row, like the attributes)
    grid: list[list[Cell]] = []
    for line in text.split("\n")[:rows]:
        row: list[Cell] = []
        pos = 0
        join_next = False
        for match in _SGR.finditer(line):
            _add_chars(row, line[pos:match.start()], tuple(style), join_next, graphics)
            join_next = bool(row) and row[-1].char.endswith("\u200d")
            if match.group(1) is not None:
                _apply(style, match.group(1))
            pos = match.end()
        _add_chars(row, line[pos:], tuple(style), join_next, graphics)
        row = row[:cols]
        grid.append(row + [UNKNOWN] * (cols - len(row)))
    while len(grid) < rows:
        grid.append([UNKNOWN] * cols)
    return grid


def _add_chars(row: list[Cell], chars: str, style: tuple, join_next: bool, graphics: list[bool]) -> None:
    for char in chars:
        if char in "\x0e\x0f":
            graphics[0] = char == "\x0e"
            continue
        if graphics[0]:
            char = char.translate(_GRAPHICS)
        w = width(char)
        if (w == 0 or join_next) and row:
            last = len(row) - 1 if row[-1].char else len(row) - 2  # the wide character, not its half
            row[last] = Cell(row[last].char + char, row[last].style)
            join_next = char == "\u200d"
            continue
        join_next = False
        row.append(Cell(char, style))
        if w == 2:
            row.append(Cell("", style))
