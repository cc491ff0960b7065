"""Desktop notifications and bells a program prints: OSC 9, OSC 99, OSC 777 and BEL.

`NotificationScanner` finds them in the decoded output stream, chunk by chunk, keeping a short
tail so a sequence split across two reads is still seen whole (as `sequences.ModeScanner` does
for titles and modes). A BEL that ends an OSC string (`ESC ] 0 ; title BEL`) or sits inside a
DCS/APC/PM/SOS string is not a bell. Chunks with no BEL and no string opener are skipped
with a few substring tests, so the scanner costs nothing on ordinary output.

What the programs print (see assets/agents/README.md): Claude Code `ESC ] 9 ; Claude needs your
permission BEL` (iTerm2-style), kitty's `ESC ] 99 ; metadata ; body ST`, urxvt/Ghostty's
`ESC ] 777 ; notify ; title ; body ST`, and aider's plain BEL with `--notifications`.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

# An OSC string ended by BEL or ST, a DCS/APC/PM/SOS string ended by ST, a string still open at
# the end of the text (kept for the next chunk: a BEL inside it is data), or a lone BEL.
_PATTERN = re.compile(
    r"\x1b\](?P<num>[0-9]*)(?:;(?P<body>[^\x07\x1b]*))?(?:\x07|\x1b\\)"
    r"|\x1b[P_^X][^\x1b]*\x1b\\"
    r"|(?P<open>\x1b(?:\][^\x07\x1b]*|[P_^X][^\x1b]*)?\x1b?\Z)"
    r"|(?P<bel>\x07)"
)
_OPENERS = ("\x07", "\x1b]", "\x1bP", "\x1b_")  # ESC ^ and ESC X are rare enough to check only in a tail
# The same check, fast: BEL is rare (a one-character find), ESC is everywhere in coloured output
# (a substring search stops at each one; one ESC-anchored pattern is ~3x cheaper than three).
_ESC_OPENER = re.compile(r"\x1b[\]P_]")  # (terminals/quiet.py must cover it: tested)
_MAX_TAIL = 4096  # an unfinished string longer than this is dropped (a sixel image, not a notification)
_CONEMU = re.compile(r"[0-9]+(?:;|\Z)")  # OSC 9;4;... is ConEmu/Windows Terminal progress, not a message


@dataclass(frozen=True)
class Notification:
    """Something a program signalled: `kind` is osc9, osc99, osc777 or bel; `at` is monotonic."""

    at: float
    kind: str
    text: str = ""


class NotificationScanner:
    def __init__(self) -> None:
        self._tail = ""
        self.bells = 0  # running count, for whoever wants a cheap "did it ring" check

    def scan(self, text: str, now: float, quiet: bool = False) -> list[Notification]:
        """The notifications and bells whose last character is in `text`, stamped `now`.
        `quiet`: `quiet.is_quiet` found no BEL and no string opener in `text`."""
        if not self._tail and text[-1:] != "\x1b" and (
                quiet or ("\x07" not in text and _ESC_OPENER.search(text) is None)):
            return []
        joined = self._tail + text
        found: list[Notification] = []
        self._tail = ""
        for match in _PATTERN.finditer(joined):
            if match.group("open") is not None:
                self._tail = match.group("open") if len(match.group("open")) <= _MAX_TAIL else ""
            elif match.group("bel"):
                found.append(Notification(now, "bel"))
                self.bells += 1
            elif match.group("num") is not None:
                note = _osc(match.group("num"), match.group("body") or "", now)
                if note:
                    found.append(note)
        return found


def _osc(number: str, body: str, now: float) -> Notification | None:
    if number == "9" and body and not _CONEMU.match(body):
        return Notification(now, "osc9", body)
    if number == "777":
        parts = body.split(";", 2)
        if parts[0] == "notify":
            return Notification(now, "osc777", ": ".join(p for p in parts[1:] if p))
        return None
    if number == "99":
        meta, _, payload = body.partition(";")
        options = dict(item.partition("=")[::2] for item in meta.split(":") if item)
        if options.get("e") == "1":  # the payload is base64
            try:
                payload = base64.b64decode(payload).decode("utf-8", "replace")
            except (binascii.Error, ValueError):
                payload = ""
        return Notification(now, "osc99", payload) if payload else None
    return None

