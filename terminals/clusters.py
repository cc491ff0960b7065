"""Characters with no width of their own, put in the cell of the character before them.

pyavt gives every code point a cell of its own, so `e` + U+0301 (a combining acute) takes two
cells where tmux, xterm and the program that printed it (measuring with `wcwidth`) count one,
and everything after it on the row sits one column to the right. The same goes for the
zero-width joiner of an emoji sequence, variation selectors, the jamo of a decomposed Hangul
syllable, Indic vowel signs.

We follow tmux's model: a zero-width code point (see `zero_width`) joins the cell before it, and
a character after a zero-width joiner joins too (so a ZWJ family is one emoji wide). pyavt is
handed each such cluster as one *placeholder* character of the base's width -- a private-use
character (plane 16) for narrow bases, an unassigned plane-3 character for wide ones, both of
which every `wcwidth` measures that way -- and `restore` turns placeholders back into their
clusters wherever text leaves the screen. The table is shared by every screen in the process
and bounded by the placeholders available; when they run out, the marks are dropped (the
columns stay right). Real characters from those two ranges are shown as U+FFFD.

A zero-width character with no base in the same feed (it arrived in the next read, or after
an escape sequence) is an *orphan*: the screen joins it to the cell left of the cursor, as
tmux does (`Screen._attach`).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import avt

from .zero_width import RANGES

NARROW = (0x100000, 0x10FFFD)  # plane 16 private use: width 1 everywhere
WIDE = (0x32400, 0x3FFFD)  # unassigned, plane 3 (CJK extension plane): width 2 everywhere
MAX_CLUSTER = 32  # characters kept in one cell (tmux keeps 21 bytes)
ZWJ = "\u200d"


def _span(first: int, last: int) -> str:
    return re.escape(chr(first)) + ("-" + re.escape(chr(last)) if last > first else "")


def _class(low: int, high: int) -> str:
    """The zero-width ranges between `low` and `high` as a regex class body."""
    pairs = zip(RANGES[::2], RANGES[1::2])
    return "".join(_span(max(a, low), min(b, high)) for a, b in pairs if a <= high and b >= low)


# A class of BMP characters compiles to a bitmap; one with astral ranges to a list of ranges
# that every character is compared with (70x slower). So the astral part is tried only after a
# one-range lookahead says the character is astral at all.
_ASTRAL = "(?=[\U00010000-\U0010ffff])"
_OURS = _span(*NARROW) + _span(*WIDE)
_ZERO = f"(?:[{_class(0, 0xFFFF)}]|{_ASTRAL}[{_class(0x10000, 0x10FFFF)}])"
_BMP_ZERO = re.compile(f"[{_class(0, 0xFFFF)}]")
_ANY_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_ASTRAL_SPECIAL = re.compile(f"[{_class(0x10000, 0x10FFFF)}{_OURS}]")
_PLACEHOLDER_LIKE = re.compile(f"{_ASTRAL}[{_OURS}]")
_BASE = f"(?!{_ZERO})[^\\x00-\\x1f\\x7f-\\x9f]"
_CLUSTER = re.compile(f"({_BASE})((?:{ZWJ}{_BASE}|{_ZERO})+)")
_ORPHANS = re.compile(f"{_ZERO}+")
# An escape sequence ending at the end of the text: its final byte is not a base character.
_SEQUENCE_END = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~])\Z")
_STRING_OPEN = re.compile(r"\x1b[\]P_^X][^\x07\x1b]*\Z")  # inside an OSC/DCS/APC/PM/SOS string
_LOOKBACK = 64


class _Table:
    """cluster <-> placeholder, shared by every screen (guarded: readers of many tabs intern)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_cluster: dict[str, str] = {}
        self.by_placeholder: dict[int, str] = {}
        self._next = {1: NARROW[0], 2: WIDE[0]}

    def intern(self, cluster: str, width: int) -> str | None:
        placeholder = self.by_cluster.get(cluster)
        if placeholder is not None:
            return placeholder
        with self._lock:
            if cluster in self.by_cluster:
                return self.by_cluster[cluster]
            code = self._next[width]
            if code > (NARROW if width == 1 else WIDE)[1]:
                return None  # none left: the caller keeps the base alone
            self._next[width] = code + 1
            placeholder = chr(code)
            self.by_placeholder[code] = cluster
            self.by_cluster[cluster] = placeholder
            return placeholder


TABLE = _Table()
_LOWEST = chr(WIDE[0])


def restore(text: str) -> str:
    """`text` with placeholders turned back into the clusters they stand for."""
    if TABLE.by_placeholder and text and max(text) >= _LOWEST:
        return text.translate(TABLE.by_placeholder)
    return text


_measure_lock = threading.Lock()
_measure_vt = avt.Vt(4, 1)


@lru_cache(maxsize=4096)
def avt_width(char: str) -> int:
    """How many cells pyavt gives `char` (1 or 2), so a placeholder takes the same."""
    with _measure_lock:
        _measure_vt.feed_str("\r" + char)
        width = _measure_vt.cursor.col
        _measure_vt.feed_str("\r\x1b[K")
    return 2 if width == 2 else 1


def placeholder(cluster: str, width: int | None = None) -> str:
    """The character to feed pyavt for `cluster` (its base when the table is full)."""
    base = cluster[0]
    if len(cluster) == 1:
        return base
    made = TABLE.intern(cluster[:MAX_CLUSTER], width or avt_width(base))
    return base if made is None else made


def rejoin(line: avt.Line, col: int, marks: str) -> str:
    """What to feed pyavt to join orphan `marks` to the cell at `col` of `line` (the one left
    of the cursor; tmux does the same): that cell printed again, as a placeholder. It gets
    the pen now in use, which is the one it had unless an SGR came between it and the marks."""
    if line[col].width == 0 and col > 0:  # the right half of a wide character
        col -= 1
    cell = line[col]
    return f"\x1b[{col + 1}G" + placeholder(restore(cell.char) + marks, max(1, cell.width))


def compose(text: str, quiet: bool = False) -> tuple[str, list[tuple[int, str]]]:
    """The text to feed pyavt, and the orphans: (offset in that text, zero-width characters)
    to join to the cell left of the cursor once the text before the offset is fed. `quiet`:
    `may_join` said `text` has no zero-width and no astral character."""
    if quiet or text.isascii() or (_BMP_ZERO.search(text) is None
                          and (_ANY_ASTRAL.search(text) is None or _ASTRAL_SPECIAL.search(text) is None)):
        return text, []  # (three fast scans: one regex over the whole set costs 70 times more)
    if _PLACEHOLDER_LIKE.search(text):
        text = _PLACEHOLDER_LIKE.sub("\ufffd", text)
    text = _CLUSTER.sub(lambda m: _cluster(m, text), text)
    orphans: list[tuple[int, str]] = []
    pieces: list[str] = []
    last = removed = 0
    for match in _ORPHANS.finditer(text):
        pieces.append(text[last:match.start()])
        if not _STRING_OPEN.search(text, max(0, match.start() - _LOOKBACK), match.start()):
            orphans.append((match.start() - removed, match.group()))
        removed += match.end() - match.start()
        last = match.end()
    if not orphans and not removed:
        return text, []
    pieces.append(text[last:])
    return "".join(pieces), orphans


_ASCII = bytes(range(0x80))
_BELOW_ASTRAL_LEAD = bytes(range(0xF0))


def may_join(data: bytes, text: str) -> bool:
    """Whether `text` (`data` decoded, its first character possibly completed from the bytes
    of the previous read) may hold a zero-width or an astral character: `compose` may change it.

    The regex scan of the whole decoded text is the costly part of `compose` on coloured CJK
    output (~0.4 ms per 64 KB). Here only the non-ASCII bytes are decoded and scanned: deleting
    the ASCII bytes never splits a multi-byte sequence (their bytes are all >= 0x80), so every
    zero-width character of the text is still there; the rest is mostly gone. An astral
    character is a 4-byte sequence, whose lead byte is >= 0xF0."""
    if text.isascii():
        return False
    if _BMP_ZERO.match(text) or text[0] > "\uffff":  # the first may have begun in the last read
        return True
    wide = data.translate(None, _ASCII)
    if wide.translate(None, _BELOW_ASTRAL_LEAD):
        return True
    return _BMP_ZERO.search(wide.decode("utf-8", "replace")) is not None


def _cluster(match: re.Match[str], text: str) -> str:
    start = match.start()
    near = start - _LOOKBACK if start > _LOOKBACK else 0
    if text.rfind("\x1b", near, start + 1) >= 0 and _SEQUENCE_END.search(text, near, start + 1):
        return match.group()  # the "base" ends an escape sequence: its marks are orphans
    cluster = match.group()
    return TABLE.by_cluster.get(cluster) or placeholder(cluster)
