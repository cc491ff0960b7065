"""The few control sequences the screen must see besides pyavt: title, modes, device queries
and the full reset (RIS) that clears those modes.

pyavt renders the grid but does not report the window title (OSC 0/2), bracketed-paste mode
(DECSET 2004), which buffer is active, or answer device queries (DA1, DSR 6n). `ModeScanner`
finds those in the text stream, keeping a short tail so a sequence split across two reads is
still seen. It is only run over chunks that contain an ESC, which keeps it cheap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# OSC 0/2 title (BEL or ST terminated), DEC private modes set/reset, DA1, DSR cursor report.
_PATTERN = re.compile(
    r"\x1b\](?P<osc>[02]);(?P<title>[^\x07\x1b]*)(?:\x07|\x1b\\)"
    r"|\x1b\[\?(?P<modes>[0-9;]+)(?P<hl>[hl])"
    r"|\x1b\[(?P<da>0?)c"
    r"|\x1b\[(?P<dsr>6)n"
    r"|(?P<ris>\x1bc)"
)
_MAX_TAIL = 512  # an unfinished sequence longer than this is not one we care about
# Every sequence _PATTERN matches starts with one of these. Coloured output has an ESC every few
# characters, and running the pattern at each one was the costliest step of feeding a tab:
# plain substring checks rule most chunks out first. Extend this with _PATTERN.
_STARTS = ("\x1b]", "\x1b[?", "\x1b[c", "\x1b[0c", "\x1b[6n", "\x1bc")


@dataclass
class Query:
    """A device query found at `end` (offset in the scanned text, after the sequence)."""

    kind: str  # "da1" | "dsr"
    end: int


class ModeScanner:
    def __init__(self) -> None:
        self.title = ""
        self.bracketed_paste = False
        self.alt_screen = False
        self._tail = ""

    def scan(self, text: str) -> list[Query]:
        """Update title and modes from `text`; return device queries with their offsets in `text`."""
        if not self._tail and "\x1b" not in text:
            return []
        joined = self._tail + text
        if not any(start in joined for start in _STARTS):
            self._tail = _unfinished_tail(joined, 0)
            return []
        shift = len(self._tail)
        queries: list[Query] = []
        consumed = 0
        for match in _PATTERN.finditer(joined):
            consumed = match.end()
            if match.group("osc") is not None:
                self.title = match.group("title")
            elif match.group("modes") is not None:
                on = match.group("hl") == "h"
                for mode in match.group("modes").split(";"):
                    if mode == "2004":
                        self.bracketed_paste = on
                    elif mode in ("47", "1047", "1049"):
                        self.alt_screen = on
            elif match.group("ris") is not None:  # full reset: pyavt resets its side too
                self.bracketed_paste = self.alt_screen = False
            elif match.end() > shift:  # a query whose last byte arrived now
                queries.append(Query("da1" if match.group("da") is not None else "dsr", match.end() - shift))
        self._tail = _unfinished_tail(joined, consumed)
        return queries


def _unfinished_tail(text: str, consumed: int) -> str:
    """The part after the last ESC if it could still grow into a sequence we look for."""
    last = text.rfind("\x1b", consumed)
    if last < 0:
        return ""
    tail = text[last:]
    if len(tail) > _MAX_TAIL:
        return ""
    if tail.startswith("\x1b]"):
        return tail if "\x07" not in tail and "\x1b\\" not in tail[1:] else ""
    if tail == "\x1b" or tail.startswith("\x1b["):
        # CSI: unfinished while it is only parameters so far
        body = tail[2:]
        return tail if re.fullmatch(r"\??[0-9;]*", body) else ""
    return ""
