"""Lines that scroll past unseen are not drawn: the screen's fast path under a flood.

`seq 1 600000` or a big `cat` prints far more lines than the screen and the styled
scrollback hold. Every one of them used to go through pyavt (~20 ns a byte, holding the GIL:
most of the host's CPU under a flood), although all but the last few thousand end up as
plain text in `PlainHistory`, or fall off the end of it. So the screen holds such output back
(`Screen._pending`) and, when it is looked at or enough has gathered, feeds pyavt only the
lines that stay in pyavt (`keep`: the styled scrollback and the screen) and hands the lines
before them to the plain history as they are. The result is the same screen, the same
styled and plain history, the same cursor and pen: tests/test_scroll_skip.py feeds the same
streams, cut at random places, to a screen that skips and one that does not and compares
everything a user or a program can see.

That holds only for output whose lines do nothing but print and end (`plain`):

- printable characters, SGR colours and `\r\n` line ends; no other control or escape, and
  nothing the cluster joiner would touch (zero-width or astral characters);
- every line that stays (in pyavt or in the plain history) fits in the width, so it is
  exactly one row (`fit`, looked at when the lines are drawn or read, not on every read
  from the PTY: splitting every chunk into lines cost as much as the rest of the fast path).
  Lines older than those may wrap: their rows fall off the history whatever their number;
- the pyavt parser is between sequences where the held text starts (`ends_in_ground`), the
  cursor is on the bottom row, and the layout is the default one (`default_layout`): no
  scroll region, no alternate screen, no line-drawing charset.
  Then every `\r\n` scrolls one row up into the scrollback, as the skipped lines would have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import avt

# Deleting these bytes from a chunk leaves its controls (but ESC): a plain chunk's are `\r\n`
# pairs. Kept: printable ASCII, ESC, and every byte of a multi-byte UTF-8 character (the C1
# controls among those, U+0080-U+009F, are looked for apart: `_C1`). Whole-chunk byte
# operations, not a regex: a regex stops at each of a coloured line's ~8 SGRs (~0.2 s on
# 30 MB, as much as the rest of the fast path).
_NOT_CONTROL = bytes(range(0x20, 0x7F)) + b"\x1b" + bytes(range(0x80, 0x100))
_C1 = re.compile(rb"\xc2[\x80-\x9f]")
_SGR_PARAMS = b"0123456789;:"  # deleted, an SGR is ESC [ m
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_SGR_BYTES = re.compile(rb"\x1b\[[0-9;:]*m")
_CONTINUATION = bytes(range(0x80, 0xC0))  # the bytes after the first of a UTF-8 character
_NOT_WIDE_LEAD = bytes(range(0xE0))  # deleting these leaves the first bytes of 3-4 byte characters
# What ends the last sequence of a chunk: a CSI, a string (OSC, DCS, ...) ended by BEL, or an
# ESC with its final byte (ST, ESC \, is one of those). Anything else leaves the parser inside
# a sequence that the next bytes may go on.
_COMPLETE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[P\]X^_][^\x07\x1b]*\x07|[ -/]*[0-OQ-WYZ\\`-~])")
_C1_TEXT = re.compile("[\x80-\x9f]")
# In `Vt.dump()`'s mode part (8-bit CSIs, which no cell holds): the alternate screen, a
# line-drawing charset designated or shifted in, a scroll region. (Autowrap and insert mode do
# not matter here: every line fits in its row and every row is a new, blank one.)
_LAYOUT = ("\x9b?1047h", "\x1b(0", "\x1b)0", "\x0e")
_MARGINS = re.compile("\x9b[0-9]+;[0-9]+r")


@dataclass(frozen=True)
class Plain:
    """What a plain chunk holds (see `plain`)."""

    breaks: int  # line ends in it (`\r\n`; one more when it starts with the `\n` of a cut pair)
    pairs: int  # the `\r\n`s wholly in it


def _cells(piece: bytes, cols: int) -> int:
    """At most how many cells `piece` (a plain line, UTF-8) takes: exactly enough to tell
    whether it fits in `cols`. Every character takes at most as many cells as its UTF-8 bytes
    (two at most, and only those of three or four bytes take two); SGRs take none."""
    if len(piece) <= cols:
        return len(piece)
    if b"\x1b" in piece:
        piece = _SGR_BYTES.sub(b"", piece)
    if piece.isascii():
        return len(piece)
    return len(piece.translate(None, _CONTINUATION)) + len(piece.translate(None, _NOT_WIDE_LEAD))


def last_wide(lines: list[str], cols: int) -> int:
    """The index of the last of `lines[1:]` that `fit` finds too wide, or 0 when none is."""
    if fit(lines[1:], cols):
        return 0
    return next(i for i in range(len(lines) - 1, 0, -1) if not fit(lines[i:i + 1], cols))


def fit(lines: list[str], cols: int) -> bool:
    """Whether each of `lines` (plain lines, as printed) takes one row of `cols` cells."""
    if not lines:
        return True
    if max(map(len, lines)) <= cols // 2:  # (a character takes two cells at most)
        return True
    pieces = "\n".join(lines).encode().split(b"\n")
    if max(map(len, pieces)) <= cols:  # (a character takes at most as many cells as bytes)
        return True
    return all(_cells(piece, cols) <= cols for piece in pieces)


def _only_sgrs(data: bytes) -> bool:
    """Every ESC in `data` starts an SGR; the last may be cut short by the end of the read."""
    bare = data.translate(None, _SGR_PARAMS)  # each SGR is now ESC [ m, and has the only ESC in it
    return bare.count(b"\x1b") == bare.count(b"\x1b[m") + (bare.endswith(b"\x1b") or bare.endswith(b"\x1b["))


def plain(data: bytes, held: str, after_cr: bool) -> Plain | None:
    """`data`, after `held` (the start of an SGR the REP clamp held back from the last read),
    as plain lines, or None when it holds anything else. `after_cr`: the last read ended
    with `\r`."""
    if b"\xc2" in data and _C1.search(data):
        return None
    if (held or b"\x1b" in data) and not _only_sgrs(held.encode() + data if held else data):
        return None
    lead, ends_cr = after_cr and data.startswith(b"\n"), data.endswith(b"\r")
    controls = data.translate(None, _NOT_CONTROL)  # `\n` first when `lead`, `\r` last when `ends_cr`
    controls = controls[lead:len(controls) - ends_cr]
    pairs = len(controls) // 2
    if controls != b"\r\n" * pairs:
        return None  # another control, or a bare CR or LF: not (only) a line end
    return Plain(pairs + lead, pairs)


def ends_in_ground(text: str, before: bool) -> bool:
    """Whether pyavt's parser is between sequences after `text`, when it was (`before`) or
    was not before it. Without an ESC the state goes on; after one, its last sequence must be
    complete and followed by no C1 control (an 8-bit CSI or OSC would open another)."""
    last = text.rfind("\x1b")
    if last < 0:
        return before and (text.isascii() or _C1_TEXT.search(text) is None)
    match = _COMPLETE.match(text, last)
    if match is None:
        return False
    rest = text[match.end():]
    return rest.isascii() or _C1_TEXT.search(rest) is None


def default_layout(dump: str) -> bool:
    """Whether `Vt.dump()` shows the layout plain lines scroll the same in (module docstring)."""
    return not any(mark in dump for mark in _LAYOUT) and _MARGINS.search(dump) is None


def pen(passed: str) -> str:
    """The SGRs that leave the pen as `passed` leaves it, on top of the pen before it: those
    after its last full reset (all of them when it has none)."""
    reset = max(passed.rfind("\x1b[0m"), passed.rfind("\x1b[m"))
    return "".join(_SGR.findall(passed, max(reset, 0)))


def pen_at(text: str, end: int, dump: Callable[[], str]) -> str:
    """SGRs that set the pen as it is at `text[end]`, where `text` is held-back output printed
    with the pen pyavt has now (read from its `dump`, only when no full reset comes first)."""
    escape = text.rfind("\x1b", 0, end)  # (none at all, as in `seq`'s output: one scan)
    reset = max(text.rfind("\x1b[0m", 0, escape + 4), text.rfind("\x1b[m", 0, escape + 3)) if escape >= 0 else -1
    if reset >= 0:
        return "".join(_SGR.findall(text, reset, end))
    base = _dump_pen(dump())
    return base + "".join(_SGR.findall(text, 0, end)) if escape >= 0 else base


def carry(passed: str, dump: Callable[[], str]) -> str:
    """What stands in for `passed` (held-back output printed with the pen pyavt has now,
    read from its `dump` only when `passed` has no full reset) ahead of the text after it: a
    full reset and the pen `passed` leaves, as pyavt keeps it ("" when `passed` has no SGR).
    Its length does not grow with what it stands in for, nor when it is carried again."""
    if "\x1b" not in passed:
        return ""
    scratch = avt.Vt(1, 1)
    scratch.feed_str(pen_at(passed, len(passed), dump))
    return "\x1b[0m" + _dump_pen(scratch.dump())


def _dump_pen(state: str) -> str:
    """The pen in `Vt.dump()`'s trailer: the SGR after its `ESC [ m` (then the modes)."""
    trailer = _SGR.search(state, state.rfind("\x1b[m") + 3)
    return trailer.group() if trailer else "\x1b[0m"


def row_text(line: str) -> str:
    """A skipped line's text as the plain history keeps it: without its colours, right-trimmed."""
    return (_SGR.sub("", line) if "\x1b" in line else line).rstrip()


def width(row: str, cols: int, measure: avt.Vt) -> int:
    """The column the cursor is in after printing `row` (a held-back line, which fits in
    `cols`) on a new row: measured by pyavt itself (`measure`, one row of `cols`) unless
    it is ASCII and shorter than the row."""
    if row.endswith("\r"):
        return 0  # the `\r` of a line end cut between two reads
    text = _SGR.sub("", row) if "\x1b" in row else row
    if text.isascii() and len(text) < cols:
        return len(text)
    measure.feed_str("\r\x1b[2K" + text)
    return measure.cursor.col
