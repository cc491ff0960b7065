"""Limits that keep a hostile byte stream from costing the host memory or time.

REP (`CSI Ps b`, repeat the preceding character Ps times) lets a few bytes print 65,535
characters (pyavt wraps larger counts), and every line they push out of the scrollback comes
back from pyavt as one object per feed: 300 of them in one read cost ~370 MB of RSS (issue 8,
item 9). Printing more characters than the screen has cells shows nothing more, so a count
above the screen's cells is clamped to the cells (plus the same remainder modulo the width,
so the cursor ends where it would have). `RepeatClamp` does that:

- only on chunks that contain an ESC or an 8-bit CSI (U+009B), so plain output costs a
  substring check;
- a CSI that is still open at the end of a chunk (its count may go on in the next read) is
  held back and completed with the next chunk -- nothing visible is delayed, an unfinished
  sequence draws nothing;
- it returns where each REP ends, so the screen can feed pyavt in pieces that each push out
  a bounded number of lines.
"""

from __future__ import annotations

import re
from typing import Iterable

# A CSI whose final byte is 'b' with nothing but parameters in between. C0 controls inside a
# CSI are executed without ending it (and CAN/SUB/ESC end it), as in the VT500 parser.
# (Two patterns with literal prefixes and no groups: several times faster than one with an
# alternation, which matters because every chunk of coloured output is scanned.)
_PARAMS = r"[0-9:;\x00-\x17\x19\x1c-\x1f\x7f]*"
_REP = re.compile(r"\x1b\[" + _PARAMS + "b")  # (terminals/quiet.py must cover it: tested)
_REP_C1 = re.compile(r"\x9b" + _PARAMS + "b")
_OPEN = re.compile(_PARAMS + r"\Z")
_CONTROLS = re.compile(r"[\x00-\x17\x19\x1c-\x1f\x7f]")
_LONG_NUMBER = re.compile(r"[0-9]{10,}")
HOLD_MAX = 1024  # an open CSI held back longer than this is shortened (see _shorten)


class RepeatClamp:
    def __init__(self) -> None:
        self._held = ""

    @property
    def held(self) -> str:
        """The start of a sequence held back for the next chunk ("" when none)."""
        return self._held

    def clamp(self, text: str, cols: int, rows: int, quiet: bool = False) -> tuple[str, list[int]]:
        """The text to feed now, with REP counts clamped to the screen, and the offsets in it
        where each REP sequence ends. `quiet`: `quiet.is_quiet` found no REP in it (after what was held)."""
        if quiet:  # nothing to clamp: only what may go on in the next chunk is held back
            text, self._held = _split_open(self._held + text if self._held else text)
            return text, []
        if not self._held and "\x1b" not in text and "\x9b" not in text:
            return text, []
        text, self._held = self._held + text, ""
        text, self._held = _split_open(text)
        cells = max(1, cols) * max(1, rows)
        out: list[str] = []
        ends: list[int] = []
        length, last = 0, 0
        matches: Iterable[re.Match[str]] = _REP.finditer(text)
        if "\x9b" in text:
            matches = sorted([*matches, *_REP_C1.finditer(text)], key=lambda m: m.start())
        for match in matches:
            piece = text[last:match.start()] + _clamped(match.group(0), cells, max(1, cols))
            out.append(piece)
            length += len(piece)
            ends.append(length)
            last = match.end()
        if not ends:
            return text, []
        out.append(text[last:])
        return "".join(out), ends


def repeat_ends(text: str) -> list[int]:
    """Where each REP in `text` ends, as `RepeatClamp.clamp` reports them (for text changed
    after the clamp without adding or removing any)."""
    matches = [*_REP.finditer(text), *(_REP_C1.finditer(text) if "\x9b" in text else ())]
    return sorted(match.end() for match in matches)


def _split_open(text: str) -> tuple[str, str]:
    """(text to feed now, open CSI or lone ESC at its end to hold for the next chunk)."""
    if text.endswith("\x1b"):
        return text[:-1], "\x1b"
    start = max(text.rfind("\x1b["), text.rfind("\x9b"))
    if start < 0:
        return text, ""
    body = start + (1 if text[start] == "\x9b" else 2)
    if not _OPEN.match(text, body):
        return text, ""
    held = text[start:]
    if len(held) > HOLD_MAX:
        controls, held = _shorten(held, text[start:body])
        return text[:start] + controls, held
    return text[:start], held


def _shorten(held: str, intro: str) -> tuple[str, str]:
    """An open CSI that keeps growing: its controls are executed now (their order relative to
    a sequence that has not ended does not matter), counts of 10+ digits become 999999999 (still
    huge, so still clamped), and what is left is cut to HOLD_MAX -- parameters that far in are
    nothing a terminal uses."""
    params = held[len(intro):]
    controls = "".join(_CONTROLS.findall(params))
    params = _LONG_NUMBER.sub("999999999", _CONTROLS.sub("", params))
    return controls, (intro + params)[:HOLD_MAX]


def _clamped(sequence: str, cells: int, cols: int) -> str:
    raw = sequence[1 if sequence[0] == "\x9b" else 2:-1]
    params = _CONTROLS.sub("", raw)
    digits = re.split("[;:]", params, maxsplit=1)[0].lstrip("0")
    if len(digits) <= 9 and int(digits or "0") <= cells:
        return sequence  # nothing to clamp: leave the sequence exactly as it was
    residue = 0
    for start in range(0, len(digits), 9):  # n mod cols without int() on a huge string
        chunk = digits[start:start + 9]
        residue = (residue * 10 ** len(chunk) + int(chunk)) % cols
    count = cells + (residue - cells) % cols  # >= cells, and == n (mod cols)
    controls = "".join(_CONTROLS.findall(raw))  # executed inside the CSI: keep them
    return f"{controls}\x1b[{count}b"
