"""The control sequences the screen must see besides pyavt: title, modes, the cursor style,
the keypad mode, device queries, DECCOLM, the clipboard (OSC 52) and the full reset (RIS) that
clears those modes.

pyavt renders the grid but does not report the window title (OSC 0/2), bracketed-paste mode
(DECSET 2004), which buffer is active, the mouse modes a program asked for (DECSET 9,
1000/1002/1003 tracking, 1005/1006/1015 encodings, 1004 focus events), the cursor style
(DECSCUSR, `CSI Ps SP q`), the keypad mode (DECKPAM `ESC =`, DECKPNM `ESC >`, DECNKM
`CSI ?66h/l`: the tab's keys are translated for it, `keys.typed_keys`), clipboard sets, or
answer device queries (DA1, DA2, DSR 5n and 6n, XTVERSION, `CSI 18 t`, the default colours:
OSC 10/11); and it ignores DECCOLM
(`CSI ?3h/l`), which xterm and tmux answer by clearing the screen and homing the cursor, and
ED 3 (`CSI 3 J`), with which they erase the scrollback. `ModeScanner` finds those in the text
stream, keeping a short tail so a sequence split across two reads is still seen (an OSC 52
payload of any length is followed by `osc52.Osc52Collector` instead). It is only run over
chunks that contain an ESC, which keeps it cheap.
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass

from .osc52 import KEEP, ClipboardSet, Osc52Collector

# OSC 0/2 title (BEL or ST terminated), OSC 52's start, DEC private modes set/reset and asked
# about (DECRQM), DA1, DSR, DECSTR, ED 0/2 (erase the screen) and 3 (erase the saved lines),
# DECSCUSR, RIS, RI, DECKPAM, DECKPNM and DECALN. One ESC prefix for all: the regex engine then jumps
# from ESC to ESC (six times faster over coloured output than an alternation of whole sequences).
_PATTERN = re.compile(
    r"\x1b(?:"
    r"\](?:(?P<osc>[02]);(?P<title>[^\x07\x1b]*)(?:\x07|\x1b\\)|(?P<clip>52;)|(?P<color>1[01]);\?(?P<color_end>\x07|\x1b\\))"
    r"|\[(?:\?(?P<modes>[0-9;]+)(?P<hl>[hl])|\?(?P<rqm>\d{1,5})\$p|(?P<da>0?)c|(?P<da2>>0?c)|(?P<dsr>[56])n|(?P<decstr>!p)|(?P<ed3>3J)|(?P<ed>[02]?)J"
    r"|(?P<style>\d?) q|(?P<version>>0?q)|(?P<size>18t))"
    r"|(?P<ris>c)|(?P<ri>M)|(?P<keypad>[=>])|(?P<decaln>#8))"
)
# Every sequence _PATTERN matches starts with one of these (extend both together; a test
# checks it). Coloured output has an ESC every few characters: _PATTERN with its groups costs
# ~0.5 ms per 64 KB read, a substring check per opening as much (ESC is everywhere, so the
# search stops at each), this one group-free pattern a third of that; it rules most reads out.
_STARTS = ("\x1b]", "\x1b[?", "\x1b[c", "\x1b[0c", "\x1b[5n", "\x1b[6n", "\x1b[!p", "\x1b[3J", "\x1b[J", "\x1b[0J",
           "\x1b[2J", "\x1bc", "\x1bM", "\x1b=", "\x1b#8",
           "\x1b>", "\x1b[>q", "\x1b[>0q", "\x1b[>c", "\x1b[>0c", "\x1b[18t",
           *(f"\x1b[{style} q" for style in ("", *"0123456789")))
_ANY_START = re.compile(r"\x1b(?:[\]cM=>]|#8|\[(?:[?c]|0c|[56]n|!p|[023]?J|\d? q|>0?[qc]|18t))")  # (terminals/quiet.py must cover it: tested)
_MAX_TAIL = 512  # an unfinished sequence longer than this is not one we care about
# A synchronized update (DECSET 2026) keeps the screen from being shown at most this long, as
# terminals do (kitty, foot, WezTerm wait 100-200 ms): a program that never ends it is shown.
SYNC_LIMIT = 0.15
MOUSE_TRACKING = (9, 1000, 1002, 1003)  # X10 (press only), normal, button-event, any-event
MOUSE_ENCODINGS = {1005: "utf8", 1006: "sgr", 1015: "urxvt"}  # else the legacy X10 bytes


@dataclass(frozen=True)
class ScreenModes:
    """The modes a program set that decide what input it wants and how."""

    mouse: int = 0  # 0 (off), 9 (X10: presses), 1000 (presses and releases), 1002 (+ drags), 1003 (+ motion)
    mouse_encoding: str = "x10"  # "x10" (legacy bytes), "utf8" (1005), "sgr" (1006), "urxvt" (1015)
    focus_events: bool = False  # 1004: send CSI I / CSI O when the tab gains or loses focus
    bracketed_paste: bool = False
    app_cursor_keys: bool = False
    alt_screen: bool = False


@dataclass
class Query:
    """Something to do at `end` (offset in the scanned text, after the sequence): answer a
    device query ("da1", "da2", "dsr5", "dsr6", "version", "size", "color:<10|11>:<its end>"), or correct pyavt (`screen_fixes.FIXES`): clear the screen for
    DECCOLM ("deccolm"), reset the cursor keys after RIS or DECSTR ("reset"), erase the
    history ("ed3"), reset the margins after DECALN ("decaln"), or do a reverse index in origin mode ("ri", whose `end` is where the
    sequence *starts*: it is replaced); or before the sequence, keep the screen in the
    history as it is erased ("ed0", "ed2", on the primary screen) and the history through a
    full reset ("ris")."""

    kind: str
    end: int


class ModeScanner:
    def __init__(self) -> None:
        self.title = ""
        self.bracketed_paste = False
        self.alt_screen = False
        self.mouse = 0  # one of MOUSE_TRACKING, 0 when off
        self.mouse_encoding = "x10"
        self.focus_events = False
        self.cursor_style = 0  # DECSCUSR: 0 the terminal's own, 1/2 block, 3/4 underline, 5/6 bar (odd: blinking)
        self.synchronized_at: float | None = None  # DECSET 2026: since when an update is open
        self.origin = False  # DECOM: pyavt gets RI wrong in it (see screen_fixes)
        self.app_keypad = False  # DECKPAM (pyavt does not follow it): the keypad sends SS3, not digits
        self.clipboard: deque[ClipboardSet] = deque(maxlen=KEEP)
        self._tail = ""
        self._clip: Osc52Collector | None = None

    def scan(self, text: str, quiet: bool = False) -> list[Query]:
        """Update title and modes from `text`; return the queries with their offsets in `text`.
        `quiet`: `quiet.is_quiet` found none of our sequences in it (only the tail is kept)."""
        if quiet and self._clip is None and not self._tail:
            self._tail = _unfinished_tail(text, 0)
            return []
        start = 0
        if self._clip is not None:  # inside a clipboard payload that began in an earlier read
            start, made = self._clip.feed(text)
            if start < 0:
                return []
            self._clip = None
            self._keep(made)
        if not self._tail and text.find("\x1b", start) < 0:
            return []
        joined = self._tail + text
        if _ANY_START.search(joined, start) is None:
            self._tail = _unfinished_tail(joined, start)
            return []
        shift = len(self._tail)
        queries: list[Query] = []
        pos = consumed = start  # (a tail is only kept outside a clipboard payload: then start is 0)
        while (match := _PATTERN.search(joined, pos)) is not None:
            pos = consumed = match.end()
            if match.group("clip") is not None:
                collector = Osc52Collector("")
                end, made = collector.feed(joined[pos:])
                if end < 0:
                    self._clip, self._tail = collector, ""
                    return queries
                self._keep(made)
                pos = consumed = pos + end
            elif match.group("keypad") is not None:
                self.app_keypad = match.group("keypad") == "="
            elif match.group("osc") is not None:
                self.title = match.group("title")
            elif match.group("color") is not None:  # OSC 10/11 "?": answered as asked, BEL or ST
                if pos > shift:
                    queries.append(Query(f"color:{match.group('color')}:{match.group('color_end')}", pos - shift))
            elif match.group("modes") is not None:
                if self._modes(match.group("modes"), match.group("hl") == "h") and pos > shift:
                    queries.append(Query("deccolm", pos - shift))
            elif match.group("rqm") is not None:
                answer = self._mode_state(int(match.group("rqm")))
                if answer and pos > shift:
                    queries.append(Query(f"rqm:{match.group('rqm')};{answer}", pos - shift))
            elif match.group("style") is not None:
                style = int(match.group("style") or 0)
                if style <= 6:
                    self.cursor_style = style
            elif match.group("ed3") is not None:
                if pos > shift:
                    queries.append(Query("ed3", pos - shift))
            elif match.group("ed") is not None:  # (before it: the screen goes to the history first)
                if not self.alt_screen and match.start() >= shift:
                    queries.append(Query("ed2" if match.group("ed") == "2" else "ed0", match.start() - shift))
            elif match.group("decaln") is not None:
                if pos > shift:
                    queries.append(Query("decaln", pos - shift))
            elif match.group("ri") is not None:
                if self.origin and match.start() >= shift:  # replaced: cut before it
                    queries.append(Query("ri", match.start() - shift))
            elif match.group("ris") is not None or match.group("decstr") is not None:
                if match.group("ris") is not None and match.start() >= shift:  # cut before it: the history goes first
                    queries.append(Query("ris", match.start() - shift))
                # (DECSTR resets the keypad as xterm and the VT510 do; tmux 3.3a leaves it)
                self.origin = self.app_keypad = False
                if match.group("ris") is not None:  # full reset: pyavt resets its side too
                    self.bracketed_paste = self.alt_screen = self.focus_events = False
                    self.mouse, self.mouse_encoding, self.cursor_style = 0, "x10", 0
                    self.synchronized_at = None
                if pos > shift:  # ... except the cursor keys (DECCKM), which both resets clear
                    queries.append(Query("reset", pos - shift))
            elif pos > shift:  # a query whose last byte arrived now
                kind = ("da1" if match.group("da") is not None else "da2" if match.group("da2") is not None
                        else "version" if match.group("version") is not None
                        else "size" if match.group("size") is not None else f"dsr{match.group('dsr')}")
                queries.append(Query(kind, pos - shift))
        self._tail = _unfinished_tail(joined, consumed)
        return queries

    def modes(self, app_cursor_keys: bool) -> ScreenModes:
        return ScreenModes(self.mouse, self.mouse_encoding, self.focus_events, self.bracketed_paste,
                           app_cursor_keys, self.alt_screen)

    def _modes(self, modes: str, on: bool) -> bool:
        """Apply DECSET/DECRST of `modes`; True when DECCOLM (3) was among them."""
        deccolm = False
        for mode in modes.split(";"):
            number = int(mode) if mode.isdigit() and len(mode) < 6 else -1
            if number == 2004:
                self.bracketed_paste = on
            elif number in (47, 1047, 1049):
                self.alt_screen = on
            elif number in MOUSE_TRACKING:  # the last one set wins; resetting another keeps it
                if on or self.mouse == number:
                    self.mouse = number if on else 0
            elif number in MOUSE_ENCODINGS:
                if on or self.mouse_encoding == MOUSE_ENCODINGS[number]:
                    self.mouse_encoding = MOUSE_ENCODINGS[number] if on else "x10"
            elif number == 1004:
                self.focus_events = on
            elif number == 2026:  # (a second start does not make an open update last longer)
                if not on or self.synchronized_at is None:
                    self.synchronized_at = time.monotonic() if on else None
            elif number == 6:
                self.origin = on
            elif number == 66:  # DECNKM: the keypad mode as a DEC mode, in xterm (tmux ignores it)
                self.app_keypad = on
            elif number == 3:
                deccolm = True
        return deccolm

    def _mode_state(self, number: int) -> int:
        """DECRQM's answer for a mode this scanner follows: 1 set, 2 reset; 0 for the others,
        which are not answered (pyavt keeps them, and a wrong answer is worse than none)."""
        known = {2026: self.synchronized_at is not None, 2004: self.bracketed_paste, 1004: self.focus_events,
                 47: self.alt_screen, 1047: self.alt_screen, 1049: self.alt_screen, 6: self.origin, 66: self.app_keypad,
                 **{mode: self.mouse == mode for mode in MOUSE_TRACKING},
                 **{mode: self.mouse_encoding == name for mode, name in MOUSE_ENCODINGS.items()}}
        return 0 if number not in known else 1 if known[number] else 2

    def _keep(self, made: ClipboardSet | None) -> None:
        if made is not None:
            self.clipboard.append(made)


class ModeReads:
    """What the scanner follows, read on the screen (mixed into `Screen`)."""

    _modes: ModeScanner

    @property
    def title(self) -> str:
        return self._modes.title

    @property
    def alt_screen(self) -> bool:
        return self._modes.alt_screen

    @property
    def bracketed_paste(self) -> bool:
        return self._modes.bracketed_paste

    @property
    def cursor_style(self) -> int:
        return self._modes.cursor_style

    @property
    def app_keypad(self) -> bool:
        return self._modes.app_keypad

    def sync_hold(self, now: float) -> float:
        """Seconds the program's open synchronized update may still keep this screen from
        being shown: 0 when none is open, or once it has lasted SYNC_LIMIT."""
        since = self._modes.synchronized_at
        return 0.0 if since is None else max(0.0, since + SYNC_LIMIT - now)


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
    if tail == "\x1b#":  # (DECALN's first half)
        return tail
    if tail == "\x1b" or tail.startswith("\x1b["):
        # CSI: unfinished while it is only parameters so far (and DECRQM's `$`, DECSCUSR's space,
        # DA2's and XTVERSION's `>`)
        body = tail[2:]
        return tail if re.fullmatch(r"[?>]?[0-9;]*\$?|\d? ", body) else ""
    return ""
