"""The banner an exited tab shows below its last screen ("exited (code 1) — prefix r to
restart"): on the row after the program's last text, so its last words -- an error, a
traceback's last line -- stay in sight; a screen full to the bottom shows one row lower to make
room (`TerminalView.pan`), as tmux's dead pane scrolls its last screen up a line for its message."""

from __future__ import annotations

from typing import Any, Callable

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

STYLE = Style(bgcolor="dark_red", color="white", bold=True)


def has_text(line: Any) -> bool:
    """A tab row ([text, sgr] pieces) with something on it."""
    return any(text.strip() for text, _ in line)


def banner_row(height: int, shown_line: Callable[[int], Any]) -> int:
    """The view row the banner goes on: the one after the last with text (`shown_line(y)`, the
    row drawn at view row y)."""
    for y in range(height - 1, -1, -1):
        if has_text(shown_line(y)):
            return min(y + 1, height - 1)
    return 0


def banner(strip: Strip, text: str, width: int) -> Strip:
    """`text` centred over a row of the last screen."""
    text = f" {text} "[:width]
    start = max(0, (width - len(text)) // 2)
    before, _hidden, after = strip.divide([start, start + len(text), width])
    return Strip.join([before, Strip([Segment(text, STYLE)]), after])
