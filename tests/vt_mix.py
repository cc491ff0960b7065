"""Seeded random mixes of what programs print on the primary screen -- text, line feeds,
cursor moves, erases, insert/delete, scrolling, margins, origin mode, autowrap, insert mode,
tab stops, SGR, DEC graphics, save/restore, DECALN, bursts of lines, visits to the alternate screen --
for the differential test against tmux (tests/test_screen_differential_tmux.py).

The mixes leave out, by construction, the places where tikitaka's screen and a tmux 3.3a pane
are known to differ, so that a difference the test reports is a new one. Where tmux is the
odd one out, or the standards disagree:

- Erasing from a wide character's right half erases the whole character in tikitaka, as in
  xterm and VTE; tmux keeps it. So wide characters come only in the `wide` mixes, where every
  text piece is an even number of cells wide and every move and count keeps the cursor on an
  even column (nothing moves it to the last column -- no CUF, tabs or autowrap off -- and a
  CHA ends each text piece; no ED 1 or EL 1, which erase up to the cursor's cell): a wide
  character always starts on an even column and no erase begins or ends inside one.
- In origin mode, DECSTBM homes the cursor to the margin's top-left (VT510, xterm, tikitaka)
  and to the screen's in tmux: DECSTBM is always followed by a CUP.
- Lines scrolled off margins that do not start at the top row go to tmux's history, not to
  ours (nor to xterm's): `Mix.mid_margins` tells the test not to compare that mix's history.
- `?1049l` restores the cursor saved by DECSC in tikitaka (one slot, as in xterm), tmux its
  own; and restores origin mode (xterm) where tmux leaves it: a visit to the alternate screen
  changes neither, and a DECRC comes only after a DECSC made since the last visit.
- DECRC restores autowrap in tikitaka (pyavt reads VT510's "wrap flag" as the mode), not in
  tmux or xterm: autowrap does not change between a DECSC and its DECRC.
- Text that ends on the last column leaves the cursor there, the next character to wrap:
  tmux counts the cursor one column further (past the screen), and so does not delete or
  insert for DCH and ICH, drops a character printed with autowrap off and moves BS, CUB and
  HT from there; xterm and tikitaka act on the last column. Each text piece ends with a CHA.
- A line that wrapping text scrolls in is blank in the background colour in tikitaka and
  xterm, in the default colour in tmux (tmux uses the colour for a line feed's scroll only):
  a background is set only for a short span of text at a row's start or for one thing that
  makes blanks.
- BS in the first column moves to the end of the row above in tmux when that row wrapped
  into this one (xterm only in its reverse-wrap mode): BS comes after a CHA.
- ICH within two columns of the right edge inserts too few blanks in tmux (20 columns
  `abc..rst`, CHA 18, ICH 2 keeps the `s`; CHA 19, ICH 2 changes nothing): ICH comes after
  a CHA further left.
- When ED 2 scrolls the screen into the history, tmux counts a row as used if anything was
  ever written to it (blanks too); pyavt's cells cannot tell a row of blanks from an empty
  one. The test does not compare blank history lines.
- Not used: CHT (`CSI I`, which tmux 3.3a ignores), REP (tmux repeats only ASCII).

Where pyavt, under our screen, is the odd one out:

- Blanks made by an erase, an insert, a delete or a scroll take the whole pen in pyavt,
  inverse, underline and strike-through too; xterm and tmux give them the colours only.
  tikitaka mends that (terminals/pen.py) where it looks for those decorations: the mixes turn
  them on as `tput smso` does, in a write of its own, then make blanks and print short text
  (not text that wraps at the bottom: that row keeps the pen); elsewhere a decoration is only
  a short span at a row's start, closed at once.

And four that are known and not mended (each rare in what programs print; mending the first
three outside pyavt would take a second record of the margins or of insert mode beside its own):

- IL and DL with the cursor outside the margins change rows in pyavt; xterm and tmux ignore
  them: the mixes send them inside.
- DL on the top row pushes the deleted lines into pyavt's history; xterm and tmux drop them:
  DL comes only below the top row.
- In insert mode pyavt moves the rest of the row one cell for a wide character, not two: the
  wide mixes do not use insert mode.
- Bold and faint at once: pyavt keeps one intensity (the last set), tmux and xterm both. SGR
  22 comes before either.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

COLS, ROWS = 20, 6
NARROW = ["ab", "hello", "xyz", "0123456789", "z" * 25, "\u00e9", "caf\u00e9 au lait"]
# In the wide mixes, each piece is an even number of cells wide.
WIDE = ["ab", "hello!", "xy", "0123456789", "wide\u4e2d\u6587", "z" * 24, "\u00e9 ", "caf\u00e9",
        "\u4e2d", "\u65e5\u672c\u8a9e", "\u00e9\u00e9\u4e2d"]
# The pen: foreground colours and the attributes a blank does not show; they stay on across anything.
SGR = ["0", "", "22;1", "31", "22;1;33", "38;5;200", "39", "22", "38;2;10;20;30", "22;2", "3", "5", "25", "91",
       "38;5;4"]
# A background, inverse, underline, strike-through: for a short span of text, then off, or for
# one thing that makes blanks (see the docstring).
BACKGROUNDS = ["44", "48;5;17", "48;2;9;7;4", "103"]
DECORATIONS = [("7", "27"), ("4", "24"), ("9", "29"), ("4;7", "24;27"), ("4;9;31", "24;29;39"),
               *((background, "49") for background in BACKGROUNDS)]


@dataclass
class Mix:
    pieces: list[str]
    mid_margins: bool  # margins that do not start at the top row were set
    alone: set[int] = field(default_factory=set)  # pieces written on their own (a read of their own)

    @property
    def data(self) -> bytes:
        return "".join(self.pieces).encode()


class _Writer:
    """What a program would print, a piece at a time, keeping what the pieces depend on: the
    margins, origin mode and whether a DECSC may be restored."""

    def __init__(self, rng: random.Random, wide: bool, cols: int, rows: int) -> None:
        self.rng, self.wide, self.cols, self.rows = rng, wide, cols, rows
        self.step = 2 if wide else 1  # counts and columns in steps of two in the wide mixes
        self.top, self.bottom = 1, rows  # the margins, 1-based
        self.origin = False
        self.saved = False  # a DECSC since the last visit to the alternate screen and autowrap change
        self.saved_origin = False
        self.mid = False
        # ED 1 and EL 1 erase up to the cursor's cell: the left half of a wide character there
        self.erase_kinds = ["", "0", "2"] if wide else ["", "0", "1", "2"]

    def count(self, low: int, high: int) -> int:
        return self.step * self.rng.randint(low, high)

    def column(self) -> int:  # 1-based, on an even 0-based column in the wide mixes
        return self.count(0, (self.cols - 1) // self.step) + 1

    def cup(self, row: int | None = None) -> str:
        row = self.rng.randint(1, self.rows) if row is None else row
        return f"\x1b[{row};{self.column()}H"

    def inside(self, lowest: int = 1) -> str:
        """A CUP to a row inside the margins, at or below absolute row `lowest`."""
        row = self.rng.randint(max(self.top, lowest), self.bottom)
        return self.cup(row - self.top + 1 if self.origin else row)

    def text(self) -> str:
        words = NARROW if not self.wide else WIDE
        # Text that ends on the last column leaves the cursor there until the next character
        # (see the docstring): a CHA ends each piece, which may hold two words.
        pieces = [*words, "\x1b(0lqqk\x1b(B"]  # (the last in DEC graphics: a box's top)
        return "".join(self.rng.choice(pieces) for _ in range(self.rng.randint(1, 2))) + f"\x1b[{self.column()}G"

    def decorated(self) -> str:
        on, off = self.rng.choice(DECORATIONS)
        return f"\x1b[1G\x1b[{on}m{self.rng.choice(['ab', 'link', 'x y z'] if not self.wide else ['ab', 'link'])}\x1b[{off}m"

    def coloured(self) -> str:
        """Blanks made in a background colour (BCE), the colour set for just that."""
        return f"\x1b[{self.rng.choice(BACKGROUNDS)}m{self.blanks()}\x1b[49m"

    def away_from_the_edge(self) -> str:  # (see the docstring: ICH)
        return f"\x1b[{self.rng.randint(1, (self.cols - 6) // self.step) * self.step - self.step + 1}G"

    def backspace(self) -> str:  # not from the first column (see the docstring)
        return f"\x1b[{self.rng.randint(2, 5) * self.step + 1}G" + "\b" * self.step

    def margins(self) -> str:
        self.top = 1 if self.rng.random() < 0.6 else self.rng.randint(2, self.rows - 1)
        self.bottom = self.rng.randint(self.top + 1, self.rows)
        self.mid |= self.top > 1
        return f"\x1b[{self.top};{self.bottom}r" + self.cup()

    def no_margins(self) -> str:
        self.top, self.bottom = 1, self.rows
        return "\x1b[r" + self.cup()

    def decaln(self) -> str:
        """DECALN: the screen filled with E, the margins reset, the cursor home (origin mode stays)."""
        self.top, self.bottom = 1, self.rows
        return "\x1b#8"

    def origin_mode(self) -> str:
        self.origin = self.rng.random() < 0.5
        return ("\x1b[?6h" if self.origin else "\x1b[?6l") + self.cup()

    def autowrap(self) -> str:
        self.saved = False
        return self.rng.choice(["\x1b[?7h", "\x1b[?7l"])

    def save(self) -> str:
        self.saved, self.saved_origin = True, self.origin
        return "\x1b7"

    def restore(self) -> str:
        if not self.saved:
            return self.save()
        self.origin = self.saved_origin  # (DECRC brings origin mode back)
        return "\x1b8"

    def lines(self) -> str:  # a burst of plain lines: what the held-output path takes
        start = self.rng.randint(1, 900)
        return "\r\n".join(f"line {i:04d} xy" for i in range(start, start + self.rng.randint(3, 40))) + "\r\n"

    def alternate(self) -> str:  # a full-screen program's visit: in and out, as programs do
        visit = "".join(self.simple(inside_alternate=True) for _ in range(self.rng.randint(1, 6)))
        self.saved = False
        return "\x1b[?1049h" + visit + "\x1b[?1049l"

    def simple(self, inside_alternate: bool = False) -> str:
        rng = self.rng
        choices = [
            self.text, self.text, self.text, self.decorated,
            lambda: f"\x1b[{rng.choice(SGR)}m", lambda: f"\x1b[{rng.choice(SGR)}m",
            lambda: "\r", lambda: "\n", lambda: "\r\n", lambda: "\r\n", self.backspace, self.cup, self.coloured,
            lambda: f"\x1b[{rng.randint(0, 3)}A", lambda: f"\x1b[{rng.randint(0, 3)}B",
            lambda: f"\x1b[{self.count(1, 3)}D",
            lambda: f"\x1b[{rng.choice(self.erase_kinds)}J", lambda: f"\x1b[{rng.choice(self.erase_kinds)}K",
            lambda: self.inside() + f"\x1b[{rng.randint(1, 3)}L", lambda: self.inside(2) + f"\x1b[{rng.randint(1, 3)}M",
            lambda: self.away_from_the_edge() + f"\x1b[{self.count(1, 2)}@", lambda: f"\x1b[{self.count(1, 2)}P",
            lambda: f"\x1b[{self.count(1, 2)}X", lambda: f"\x1b[{rng.randint(1, 3)}S",
            lambda: f"\x1b[{rng.randint(1, 3)}T", lambda: "\x1bM", lambda: "\x1bD", lambda: "\x1bE",
            lambda: f"\x1b[{self.column()}G", lambda: f"\x1b[{rng.randint(1, self.rows)}d",
        ]
        if not inside_alternate:
            choices += [self.origin_mode, self.save, self.restore]
        if not self.wide:  # what may put the cursor on the last (odd) column, and insert mode
            choices += [lambda: f"\x1b[{rng.randint(0, 5)}C", lambda: "\t", lambda: "\x1bH", lambda: "\x1b[3g",
                        lambda: f"\x1b[{rng.randint(1, 2)}Z", lambda: "\x1b[4h", lambda: "\x1b[4l"]
            if not inside_alternate:
                choices.append(self.autowrap)
        return rng.choice(choices)()

    def standout(self) -> list[str]:
        """`tput smso`, then what makes blanks and short text, then `tput rmso` (see the
        docstring): the first piece is written on its own."""
        on, off = self.rng.choice(DECORATIONS[:5] + [("0;38;5;208;4", "0"), ("3;5;4;31", "0")])
        inside = [f"\x1b[1G{self.rng.choice(['ab', 'link', 'x y z'] if not self.wide else ['ab', 'link'])}"
                  if self.rng.random() < 0.3 else self.blanks() for _ in range(self.rng.randint(1, 6))]
        return [f"\x1b[{on}m", *inside, f"\x1b[{off}m"]

    def blanks(self) -> str:
        """Something that makes blanks: an erase, an insert, a delete, a scroll, a line feed."""
        return self.rng.choice([
            lambda: f"\x1b[{self.rng.choice(self.erase_kinds)}K", lambda: f"\x1b[{self.count(1, 2)}X",
            lambda: self.away_from_the_edge() + f"\x1b[{self.count(1, 2)}@", lambda: f"\x1b[{self.count(1, 2)}P",
            lambda: f"\x1b[{self.rng.choice(self.erase_kinds)}J", lambda: self.inside() + "\x1b[L",
            lambda: self.inside(2) + "\x1b[M", lambda: "\x1b[S", lambda: "\x1b[T", lambda: "\n", lambda: "\r\n",
            lambda: "\x1bM", lambda: "\x1bD", lambda: "\x1bE"])()

    def piece(self) -> str | list[str]:
        if self.rng.random() < 0.12:
            return self.rng.choice([self.margins, self.no_margins, self.lines, self.alternate, self.standout,
                                    self.decaln])()
        return self.simple()


def mix(seed: int, wide: bool, cols: int = COLS, rows: int = ROWS) -> Mix:
    rng = random.Random(seed)
    writer = _Writer(rng, wide, cols, rows)
    case = Mix([], False)
    for _ in range(rng.randint(5, 50)):
        piece = writer.piece()
        if isinstance(piece, list):
            case.alone.add(len(case.pieces))
            case.pieces.extend(piece)
        else:
            case.pieces.append(piece)
    case.mid_margins = writer.mid
    return case
