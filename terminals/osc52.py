"""OSC 52, the clipboard sequence: reading the ones a program in a tab sends, and writing one
for the outer terminal.

A program sets the clipboard with `ESC ] 52 ; Pc ; Pd BEL` (or ST, `ESC \\`): `Pc` names the
selection(s) (`c` clipboard, `p` primary, `s`, `0`-`7`; empty means `s0`), `Pd` is the text in
base64, or `?` to ask for the clipboard back. We keep sets (so the host can pass them on) and
ignore queries: handing the user's clipboard to whatever runs in a tab is not ours to allow.

`Osc52Collector` follows a payload across any number of reads without re-scanning it (an
editor copying a large buffer sends hundreds of KB in one sequence); one over `MAX_PAYLOAD`
is dropped whole, never cut. `encode` builds the sequence we write to the outer terminal.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

MAX_PAYLOAD = 4 * 1024 * 1024  # base64 characters (~3 MB of text); a larger set is dropped
PREFIX = "\x1b]52;"
KEEP = 8  # sets kept until taken: a program copying in a loop cannot grow the host


@dataclass(frozen=True)
class ClipboardSet:
    """A program asked to set `selection` (as it wrote `Pc`; "" means the default) to `text`."""

    selection: str
    text: str


def parse(body: str) -> ClipboardSet | None:
    """`Pc;Pd` (the sequence between `ESC ] 52 ;` and its terminator) -> a set, or None for a
    query or a payload that is not base64."""
    selection, sep, data = body.partition(";")
    if not sep or data == "?":
        return None
    try:
        raw = base64.b64decode(data.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return ClipboardSet(selection, raw.decode("utf-8", errors="replace"))


class Osc52Collector:
    """The body of one OSC 52 that spans reads: started with the part after `ESC ] 52 ;`, fed
    the following reads until one holds the terminator."""

    def __init__(self, start: str) -> None:
        self._parts = [start]
        self._size = len(start)
        self._after_esc = start.endswith("\x1b")

    def feed(self, text: str) -> tuple[int, ClipboardSet | None]:
        """Where the sequence ends in `text` (-1: not yet) and the set it made, if any."""
        if self._after_esc:
            if text.startswith("\\"):
                return 1, self._finish(drop_last=1)
            if text:
                return 0, None  # ESC then anything but "\": the sequence was cancelled
        bel, esc = text.find("\x07"), text.find("\x1b")
        if bel >= 0 and (esc < 0 or bel < esc):
            self._add(text[:bel])
            return bel + 1, self._finish()
        if esc < 0 or esc == len(text) - 1:  # no end yet (or ESC last: ST may be split)
            self._add(text)
            return -1, None
        if text[esc + 1] == "\\":
            self._add(text[:esc])
            return esc + 2, self._finish()
        return esc, None  # another sequence starts: this one was cancelled, the ESC is its

    def _add(self, text: str) -> None:
        self._size += len(text)
        if self._size <= MAX_PAYLOAD:
            self._parts.append(text)
        else:
            self._parts = []
        self._after_esc = text.endswith("\x1b")

    def _finish(self, drop_last: int = 0) -> ClipboardSet | None:
        if self._size > MAX_PAYLOAD:
            return None
        body = "".join(self._parts)
        return parse(body[:len(body) - drop_last] if drop_last else body)


def encode(text: str, selection: str = "c") -> bytes:
    """The OSC 52 sequence that puts `text` on the outer terminal's clipboard (ST-terminated,
    which xterm, tmux, kitty, WezTerm, iTerm2 and foot all take)."""
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"{PREFIX}{selection};{data}\x1b\\".encode("ascii")


def encode_for_tmux(text: str, selection: str = "c") -> bytes:
    """The same wrapped in tmux's DCS passthrough, for an outer tmux whose `set-clipboard` is
    off but `allow-passthrough` on (ESCs inside are doubled)."""
    inner = encode(text, selection).replace(b"\x1b", b"\x1b\x1b")
    return b"\x1bPtmux;" + inner + b"\x1b\\"
