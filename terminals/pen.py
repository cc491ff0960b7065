"""Blanks without the pen's inverse, underline and strike-through.

pyavt gives the blanks that an erase, an insert, a delete or a scroll makes the whole pen;
xterm and tmux give them the pen's colours only. So `tput smso; echo WARNING; tput rmso` at the
bottom of the screen left a solid bar across the next row (the line feed scrolled it in with
inverse on), and an underlined word before a line feed underlined the whole next row, where a
terminal shows nothing. `Decorations` keeps which of the three pyavt's pen holds and, while
any does, wraps each thing that makes blanks -- a line feed (LF, VT, FF, IND, NEL), RI, and
ED, EL, ECH, ICH, DCH, IL, DL, SU, SD -- between an SGR that turns them off and one that turns
them back on, and erases the alternate screen again after a switch to it (which pyavt clears
with the whole pen).

What it reads is what pyavt does with an SGR: `4`, `7`, `9` turn them on, `24`, `27`, `29` off,
`0` (or none) all off; a parameter with colons is a colour or nothing; `38`/`48`/`58` take
their colour's parameters with them. DECSC, SCOSC and `?1048h`/`?1049h` save the pen and
DECRC, SCORC and `?1048l`/`?1049l` bring it back; RIS and DECSTR reset it.

Looking at every SGR of a coloured flood for a decoration would cost half as much again as
the rest of the screen's work on it (30 MB of coloured lines: 0.08 s more on 0.15 s), so the
text is read only while a decoration is on (or saved), and otherwise looked at only where it
is cheap: a chunk of at most LOOK_SMALL characters (what a program prints at a time when it is
not flooding), a larger one the screen's scanners look at anyway (not those its one quiet look
lets through, `quiet`), and plain lines where they are drawn (the lines a flood scrolls past
unseen are never drawn: `screen_held`). Looked at, an SGR that turns a decoration on after
nothing but one-digit parameters is noticed -- `CSI 7 m`, `CSI 4 m`, `CSI 0;1;4 m`, `CSI
1;3;4;31 m`: how tput, curses, chalk, crossterm and rich send them -- or after a first `0`
(`CSI 0;38;5;208;4 m`, and the pen pyavt's `dump` writes, which held lines carry). A
decoration turned on elsewhere (`CSI 31;4 m`, or in a large chunk with nothing for the
scanners) is missed until it is turned off, and its blanks stay as pyavt makes them. Text
that wraps at the bottom of the screen also scrolls a row in with the pen: that row keeps it
too.
"""

from __future__ import annotations

import re

# An SGR that turns a decoration on after one-digit parameters or a first 0 (see the docstring).
_STARTS = re.compile(r"\x1b\[(?:(?:[0-9];)*|0;[0-9:;]*;)[479][;m]")
# What the pen follows, and what makes blanks.
_EVENTS = re.compile(r"\x1b\[(?P<sgr>[0-9:;]*)m|(?P<save>\x1b7|\x1b\[s|\x1b\[\?1048h)"
                     r"|(?P<restore>\x1b8|\x1b\[u|\x1b\[\?104[89]l)|(?P<reset>\x1bc|\x1b\[!p)"
                     r"|(?P<blanks>[\n\x0b\x0c]|\x1b[DEM]|\x1b\[\??[0-9;]*[@JKLMPSTX])|(?P<alternate>\x1b\[\?(?:1049|1047|47)h)")
_ON = {"4": 1, "7": 2, "9": 4}
_OFF = {"24": 1, "27": 2, "29": 4}
_COLOURS = ("38", "48", "58")
CLEAN = "\x1b[24;27;29m"
LOOK_SMALL = 4096  # characters: a chunk this small is always looked at (see the docstring)


def apply_sgr(state: int, params: str) -> int:
    """The decorations after an SGR with `params`, read as pyavt reads them."""
    tokens = params.split(";")
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _COLOURS and i + 1 < len(tokens):
            i += {"5": 2, "2": 4}.get(tokens[i + 1], 1)
        elif token in ("", "0"):
            state = 0
        elif token in _ON:
            state |= _ON[token]
        elif token in _OFF:
            state &= ~_OFF[token]
        i += 1
    return state


def restore(state: int) -> str:
    return "\x1b[" + ";".join(code for code, bit in _ON.items() if state & bit) + "m"


class Decorations:
    def __init__(self) -> None:
        self.state = 0  # the decorations on: bits of _ON
        self.saved = 0  # those a DECSC saved

    def copy(self) -> Decorations:
        other = Decorations()
        other.state, other.saved = self.state, self.saved
        return other

    def wrap(self, text: str, look: bool = True) -> str:
        """`text` with each thing that makes blanks while a decoration is on wrapped so it
        makes them without (see the module docstring); the state follows the text. Without
        `look`, a decoration turned on in it is not looked for."""
        if not (self.state or self.saved) and (not look or _STARTS.search(text) is None):
            return text
        out: list[str] = []
        last = 0
        for match in _EVENTS.finditer(text):
            kind = match.lastgroup
            if kind == "sgr":
                self.state = apply_sgr(self.state, match.group("sgr"))
            elif kind == "save":
                self.saved = self.state
            elif kind == "restore":
                self.state = self.saved
            elif kind == "reset":
                self.state = self.saved = 0
            elif kind == "alternate":  # (`?1049h` saves the pen first; each clears the screen it goes to)
                if match.group(0) == "\x1b[?1049h":
                    self.saved = self.state
                if self.state:
                    out.append(text[last:match.end()])
                    out.append(CLEAN + "\x1b[2J" + restore(self.state))
                    last = match.end()
            elif self.state:
                out.append(text[last:match.start()])
                out.append(CLEAN + match.group(0) + restore(self.state))
                last = match.end()
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)
