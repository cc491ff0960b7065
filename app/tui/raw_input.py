"""What the outer terminal sends, split between the program in the tab and the UI itself.

Keys belong to the program: every byte the outer terminal sends goes to the tab exactly as it
came (Alt+1 stays ESC 1, F5 stays ESC [ 1 5 ~), except
- the prefix key, and the key after it (a command for tikitaka; the prefix twice sends the
  prefix to the program; a mouse or focus report in between is the UI's and the key is still
  to come; a paste in between ends the prefix and is pasted),
- mouse reports (SGR `ESC [ < ... M/m`, urxvt `ESC [ b;x;y M`, X10 `ESC [ M bxy`), focus
  reports (`ESC [ I`, `ESC [ O`) and the terminal's answers to the UI's queries (`ESC [ ? ...
  $ y`, `ESC [ ? ... u`, in-band resize `ESC [ 48 ; ... t`, its colours `ESC ] 10/11 ; ...`):
  these go to the UI. (`ESC ]` is otherwise Alt+]; while the UI waits for its colours, one cut
  off at the end of a read is held for the rest of an answer),
- a bracketed paste (`ESC [ 200 ~ ... ESC [ 201 ~`): its text, pasted into the tab (bracketed
  again only if the program asked).

`Splitter.feed` returns actions in order: ("tab", bytes), ("ui", bytes), ("paste", bytes),
("command", key bytes), ("prefix", the prefix's bytes: it was pressed twice). "tab" means keys,
not the tab itself: while a dialog or the agent panel has the keyboard the driver gives them
to Textual; the prefix is found in every byte, so it works there too. A sequence cut off at
the end of a read is held for the next one (or for `flush`, after a short wait, when it turns
out to be a key after all). After a command it stops: the rest waits in `pending` until
`resume()`, so keys typed right after, say, prefix 2 reach the tab the command switched to.
Pure: no Textual, no I/O.
"""

from __future__ import annotations

import re

ESC = 0x1B
_CSI_END = re.compile(rb"[\x40-\x7e]")  # a CSI's final byte
_CSI_BODY = re.compile(rb"[\x20-\x3f]*")  # parameters and intermediates
_UI_CSI = re.compile(rb"\x1b\[(?:<[\d;]*[Mm]|\d+;\d+;\d+M|[IO]|\?[\d;]*\$y|\?\d*u|48;[\d;]*t)\Z")
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
# The terminal's answer to OSC 10/11 "?" (its default colours), ended by BEL or ST; and what can
# still grow into one.
COLOR_REPLY = re.compile(rb"\x1b\](1[01]);([^\x07\x1b]{1,64})(?:\x07|\x1b\\)")
_COLOR_REPLY_START = re.compile(rb"\x1b\](?:1(?:[01](?:;[^\x07\x1b]{0,64}\x1b?)?)?)?")


def _utf8_length(lead: int) -> int:
    if lead < 0xC0:
        return 1
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    return 4


class Splitter:
    def __init__(self, prefix: bytes) -> None:
        self.prefix = prefix
        self.prefix_pending = False
        self.pending = b""  # bytes not looked at yet (held sequences, or after a command)
        self._paste: bytearray | None = None
        self.stopped = False  # a command was returned: `resume()` before going on
        self.awaiting_colors = False  # the UI asked its terminal for its colours (OSC 10/11)

    def feed(self, data: bytes) -> list[tuple[str, bytes]]:
        self.pending += data
        if self.stopped:
            return []
        return self._run(final=False)

    def resume(self) -> list[tuple[str, bytes]]:
        self.stopped = False
        return self._run(final=False)

    def flush(self) -> list[tuple[str, bytes]]:
        """No more bytes came: a held sequence was not one of ours; it goes to the tab."""
        if self.stopped or self._paste is not None:
            return []
        return self._run(final=True)

    @property
    def holding(self) -> bool:
        return bool(self.pending) and not self.stopped and self._paste is None

    # -- the loop ----------------------------------------------------------------------------

    def _run(self, final: bool) -> list[tuple[str, bytes]]:
        buf, i, out = self.pending, 0, []
        prefix = self.prefix
        while i < len(buf):
            if self._paste is not None:
                end = buf.find(PASTE_END, i)
                if end < 0:
                    keep = max(i, len(buf) - len(PASTE_END) + 1)  # the end marker may be cut off
                    self._paste += buf[i:keep]
                    i = keep
                    break
                self._paste += buf[i:end]
                out.append(("paste", bytes(self._paste)))
                self._paste, i = None, end + len(PASTE_END)
                continue
            if self.prefix_pending:
                size = self._key_size(buf, i, final)
                if size == 0:
                    break  # the key after the prefix is not all here yet
                key = buf[i:i + size]
                i += size
                if key == PASTE_START:  # a paste is no key: it ends the prefix and is pasted
                    self.prefix_pending, self._paste = False, bytearray()
                    continue
                if _for_ui(key):  # the mouse moved, the focus changed: the key is still to come
                    out.append(("ui", key))
                    continue
                self.prefix_pending = False
                if key == prefix:  # the prefix twice: the program in the tab gets it, whoever
                    out.append(("prefix", prefix))  # has the keyboard (a dialog does not want it)
                    continue
                out.append(("command", key))
                self.stopped = True
                break
            if buf.startswith(prefix, i):
                self.prefix_pending, i = True, i + len(prefix)
                continue
            if buf[i] != ESC:
                stop = len(buf)
                for mark in (b"\x1b", prefix[:1]):
                    found = buf.find(mark, i + 1)
                    if 0 <= found < stop:
                        stop = found
                out.append(("tab", buf[i:stop]))
                i = stop
                continue
            size = self._sequence_size(buf, i, final)
            if size == 0:
                break  # cut off: hold it
            sequence = buf[i:i + size]
            i += size
            if sequence == PASTE_START:
                self._paste = bytearray()
            elif _for_ui(sequence):
                out.append(("ui", sequence))
            else:
                out.append(("tab", sequence))
        self.pending = buf[i:]
        return _merged(out)

    def _sequence_size(self, buf: bytes, i: int, final: bool) -> int:
        """Length of the escape sequence at `i`, or 0 when it may still be growing."""
        rest = len(buf) - i
        if rest == 1:
            return 1  # a lone ESC: the Escape key (terminals send sequences in one write)
        second = buf[i + 1]
        if second == ord("]"):  # the terminal's colours, or Alt+]
            if (reply := COLOR_REPLY.match(buf, i)) is not None:
                return reply.end() - i
            if self.awaiting_colors and not final and _COLOR_REPLY_START.fullmatch(buf, i):
                return 0
        if second == ord("["):
            body = _CSI_BODY.match(buf, i + 2)
            end = body.end() if body else i + 2
            if end >= len(buf):
                return len(buf) - i if final else 0
            size = end - i + 1
            if buf[i + 2:i + 3] == b"M" and size == 3:  # X10 mouse: three more bytes
                return 6 if rest >= 6 else (rest if final else 0)
            return size
        if second == ord("O"):  # SS3: F1-F4, keypad and cursor keys in application mode
            end = i + 2
            while end < len(buf) and 0x30 <= buf[end] <= 0x39:  # a modifier: xterm's Ctrl+KP* is SS3 5 j
                end += 1
            if end >= len(buf):
                return len(buf) - i if final else 0
            return end - i + 1
        if second == ESC:
            return 1  # ESC ESC: the first is a key of its own
        size = 1 + _utf8_length(second)  # Alt+key: ESC and one character
        return size if rest >= size else (rest if final else 0)

    def _key_size(self, buf: bytes, i: int, final: bool) -> int:
        if buf.startswith(self.prefix, i):
            return len(self.prefix)
        if buf[i] == ESC:
            return self._sequence_size(buf, i, final)
        size = _utf8_length(buf[i])
        return size if len(buf) - i >= size else (len(buf) - i if final else 0)


def _for_ui(sequence: bytes) -> bool:
    """A mouse or focus report, or the terminal's answer to a query: the UI's, never a key."""
    return (bool(_UI_CSI.match(sequence)) or sequence.startswith(b"\x1b[M") and len(sequence) == 6
            or COLOR_REPLY.fullmatch(sequence) is not None)


def _merged(actions: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Adjacent bytes for the tab (or the UI) in one action: one write instead of many."""
    out: list[tuple[str, bytes]] = []
    for kind, data in actions:
        if out and kind in ("tab", "ui") and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + data)
        elif data or kind == "paste":
            out.append((kind, data))
    return out
