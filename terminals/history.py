"""The oldest part of a tab's scrollback: lines pushed out of pyavt's styled scrollback, kept
as plain text (~1/20 of pyavt's memory per line).

They are turned into text lazily. Reading a pushed-out line's text costs ~1 us, more than
parsing it did, and a flood pushes out far more lines than the history keeps: `push` only
queues the pyavt lines (at most as many as the history holds, so the oldest fall off unread)
and `settle` reads the text of those still kept, when the output is quiet or someone reads the
history. Settling a big batch hands the freed memory back to the system (glibc keeps it
otherwise), so a flood's transient lines do not stay in the host's RSS.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Callable

import avt
from avt.util import TextUnwrapper

from .clusters import restore
from .scroll_skip import row_text

RELEASE_AFTER = 1000  # settling this many lines frees megabytes: return them to the system


def _malloc_trim() -> Callable[[], None]:
    if not sys.platform.startswith("linux"):
        return lambda: None
    try:
        import ctypes

        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    return lambda: trim(0) and None


release_memory = _malloc_trim()


class PlainHistory:
    def __init__(self, limit: int) -> None:
        self._text: deque[str] = deque(maxlen=max(0, limit))
        # Whether each of them goes on in the next (a line longer than the screen, wrapped): a
        # copy or a search joins them without a newline, as in the rows pyavt still holds.
        self._wraps: deque[bool] = deque(maxlen=max(0, limit))
        # Pushed out, text not read yet: pyavt's lines, or the lines a flood printed that never
        # went through pyavt (`scroll_skip`), as printed.
        self._raw: deque[avt.Line | str] = deque(maxlen=max(0, limit))
        # Lines that fell off the oldest end so far (here, or before they got here: `drop`), so
        # a history row can be named for good: `dropped` + its index. A UI scrolled back keeps
        # its place by that number once the history is full and its length stops growing.
        self.dropped = 0

    @property
    def limit(self) -> int:
        return self._text.maxlen or 0

    def __len__(self) -> int:
        return min(len(self._text) + len(self._raw), self.limit)

    @property
    def unsettled(self) -> int:
        return len(self._raw)

    def push(self, evicted: list[avt.Line] | list[str]) -> None:
        if not evicted:
            return
        before = len(self)
        if self.limit:
            self._raw.extend(evicted)  # C speed; the text is read in `settle`
        self.dropped += before + len(evicted) - len(self)

    def drop(self, count: int) -> None:
        """`count` lines older than any kept went without being pushed (see `dropped`)."""
        self.dropped += count

    def clear(self) -> None:
        """Every line goes (counted as dropped)."""
        self.dropped += len(self)
        self._text.clear()
        self._wraps.clear()
        self._raw.clear()

    def settle(self) -> int:
        """Read the text of the lines pushed since the last call; returns how many."""
        raw = self._raw
        if not raw:
            return 0
        count = len(raw)
        self._text.extend(  # clusters back
            restore(row_text(line) if isinstance(line, str) else line.text.rstrip()) for line in raw)
        # (~1 us a line; the lines a flood printed past pyavt each fit in a row: `scroll_skip`)
        self._wraps.extend(not isinstance(line, str) and TextUnwrapper().push(line) is None for line in raw)
        raw.clear()
        if count >= RELEASE_AFTER:
            release_memory()
        return count

    def lines(self, start: int, stop: int) -> list[str]:
        """Lines [start, stop), 0 being the oldest kept."""
        self.settle()
        text = self._text
        return [text[i] for i in range(max(0, start), min(stop, len(text)))]

    def wrapped(self, start: int, stop: int) -> list[int]:
        """Which of lines [start, stop) go on in the next one."""
        self.settle()
        wraps = self._wraps
        return [i for i in range(max(0, start), min(stop, len(wraps))) if wraps[i]]

    def last(self, count: int) -> list[str]:
        self.settle()
        return list(self._text)[-count:] if count > 0 else []
