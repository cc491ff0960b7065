"""The line that marks a restart in a tab's screen: `── restarted 12:04:31 ──`.

A restarted tab keeps what its last program printed: the screen leaves the alternate buffer,
drops the modes the old program set (pen, margins, origin, insert, cursor keys, bracketed
paste, mouse and focus reporting, the title), prints the divider on the line below the old
output and scrolls it to the top row, the old output into the history; the new program starts
under it.
"""

from __future__ import annotations

import time
from typing import Any

# DECSTR (soft reset: pen, margins, origin, insert, autowrap, cursor keys, cursor shown), the
# modes tracked beside pyavt switched off, and an empty title.
RESET = (b"\x1b[!p\x1b[?1l\x1b[?2004l\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1004l"
         b"\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b]2;\x07")
RULE = "\u2500"  # ─


def label(when: float | None = None) -> str:
    return "restarted " + time.strftime("%H:%M:%S", time.localtime(when))


def line(text: str, cols: int) -> bytes:
    """The divider as a faint rule across the screen, `text` near its left end."""
    body = f"{RULE * 2} {text} "
    body = (body + RULE * max(0, cols - len(body)))[:cols]
    return f"\x1b[2m{body}\x1b[0m".encode()


def restart(screen: Any, text: str) -> None:
    """Mark on `screen` (a `Screen`) that a new program starts here."""
    screen.feed(RESET + (b"\x1b[?1049l" if screen.alt_screen else b""))
    rows = screen.snapshot().lines
    used = [row for row, segments in rows.items() if "".join(t for t, _ in segments).strip()]
    row, col, _visible = screen.cursor
    below = max([row + (1 if col else 0), *(r + 1 for r in used)])
    # Home, down to the row below the old output (scrolling it up when that is past the
    # bottom), the rule, and the next line for the new program.
    screen.feed(b"\x1b[H" + b"\r\n" * below + line(text, screen.cols) + b"\r\n")
    # Then scroll the old output into the history, so the rule is the top row: the new program
    # gets the screen below it, and whoever reads the screen (the agent-state detector, a
    # peer's `terminal-read --lines 5`) sees the new program, not the last words of the old.
    rule_row = screen.cursor[0] - 1
    if rule_row > 0:
        screen.feed(f"\x1b[{screen.rows};1H".encode() + b"\n" * rule_row + b"\x1b[2;1H")
