"""Whether the terminal the UI runs in can scroll a rectangle: left and right margins (DECSLRM).

A tab that prints line after line scrolls every row of its view. Where the view is as wide as
the terminal, the terminal scrolls the rows itself (DECSTBM and SU: `direct_paint`); beside the
agent panel on the right that would move the panel too, so every row was written again each
frame -- 29x the bytes of a tmux client for the same stream (bench/outer_bytes.py), paid for
over SSH. A terminal with left and right margins (DECLRMM, mode 69: xterm and others) scrolls
the view's columns alone. Whether it has them is asked once as the UI starts (DECRQM); the
answer comes in among the keys and is taken out here (`driver`), never reaching a tab. A
terminal that does not answer, or says it does not know the mode (kitty, VTE, Alacritty, tmux
do not have it), keeps every row written.
"""

from __future__ import annotations

import re

QUERY = "\x1b[?69$p"  # DECRQM: is DECLRMM set (1), reset (2), permanently so (3, 4), or unknown (0)?
REPLY = re.compile(rb"\x1b\[\?69;([0-4])\$y")


class OuterMargins:
    def __init__(self) -> None:
        self.state: bytes | None = None  # the answer: b"1" set, b"2" reset -- the terminal has them

    @property
    def available(self) -> bool:
        return self.state in (b"1", b"2")

    def take(self, chunk: bytes) -> bytes:
        """`chunk` (for the UI) without the answer in it, which is kept (the input thread)."""
        if b"$y" not in chunk:
            return chunk
        for reply in REPLY.finditer(chunk):
            self.state = reply[1]
        return REPLY.sub(b"", chunk)

    def scroll(self, left: int, right: int, top: int, bottom: int, lines: int) -> str | None:
        """What scrolls the rectangle of columns `left`..`right` and rows `top`..`bottom` (from
        1, inclusive) up `lines` rows (down, if negative), leaving the margins as they were (none:
        the cursor then is at the home position, the paint after places it); None where the
        terminal cannot."""
        if not self.available:
            return None
        # (While DECLRMM is set, CSI s is DECSLRM -- without parameters, the whole width --
        # not SCOSC; it is set only around the scroll unless the terminal had it set.)
        was_set = self.state == b"1"
        return ("" if was_set else "\x1b[?69h") + (
            f"\x1b[{left};{right}s\x1b[{top};{bottom}r\x1b[{abs(lines)}{'S' if lines > 0 else 'T'}\x1b[s\x1b[r") + ("" if was_set else "\x1b[?69l")
