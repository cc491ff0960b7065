"""The VT screen of one tab, on pyavt (asciinema's Rust `avt`), behind a small interface.

Bytes go in undecoded: an incremental UTF-8 decoder keeps a multi-byte character that is
split across two reads whole; zero-width characters join their base's cell (`clusters`).
Out come styled rows (for the UI, built by `rows`, measured as Rich measures them: `cellfit`),
plain text of the last N lines of scrollback and screen (for `terminal-read` and the
coordinator), the cursor, the title, the modes (`sequences`), the clipboard sets (OSC 52), the
rows that changed since the last look, and the answers to the device queries the program asks
(`replies`; the default colours once `colors` are known) to write back to the child.

Lines pushed out of pyavt's styled scrollback go to a `PlainHistory`, which reads their text
lazily (`settle`: when the output is quiet, or when someone reads the history). Under a flood
of plain lines, the lines that would only scroll past are not drawn at all: output is held
back until the screen is looked at and only what stays in pyavt goes through it
(`scroll_skip`); every method that reads the screen first brings it up to date (`_flush`).
"""

from __future__ import annotations

import codecs
import itertools
from dataclasses import dataclass
from typing import Callable

import avt

from . import clusters, replies, scroll_skip
from .history import PlainHistory
from .pen import LOOK_SMALL, Decorations
from .quiet import is_quiet
from .rows import DEFAULT_STYLE, CellStyle, Color, Segment, StyledLine, styled_line, view_rows, wrapped_rows
from .screen_agent import AgentHooks
from .screen_fixes import FIXES, ScreenFixes
from .screen_held import HeldOutput
from .screen_read import ScreenReads
from .sequences import ModeReads, ModeScanner
from .vt_limits import RepeatClamp, repeat_ends

__all__ = ["Screen", "ScreenUpdate", "CellStyle", "Color", "Segment", "StyledLine", "DEFAULT_STYLE",
           "styled_line"]
# pyavt keeps ~24 bytes per cell, so 10,000 lines of 120 columns cost ~29 MB a tab. The most
# recent STYLED_HISTORY lines of scrollback stay in pyavt with their colours; older lines are
# kept as plain text (~1/20 of the memory), which is what reading them back needs.
STYLED_HISTORY = 1000
# pyavt returns every line a feed pushes out of the scrollback at once (~24 bytes per cell):
# a feed is cut after enough REPs to push out about this many lines (see vt_limits).
EVICT_BUDGET = 1024
# Update serials are process-wide: a restarted tab's new screen goes on counting where the old
# one stopped, so a UI can tell an older frame from a newer one across the restart.
_SERIALS = itertools.count(1)


@dataclass(frozen=True)
class ScreenUpdate:
    cols: int
    rows: int
    lines: dict[int, StyledLine]  # view rows that changed (every row when full)
    full: bool
    cursor: tuple[int, int, bool]  # row, col, visible
    history: int  # scrollback lines above the view (0 on the alternate screen)
    alt_screen: bool
    title: str
    bracketed_paste: bool
    app_cursor_keys: bool
    serial: int = 0  # increases with every update and snapshot of this screen: orders them
    mouse: int = 0  # the mouse tracking the program asked for (0: none; see `mouse`)
    clipboard: tuple[str, ...] = ()  # texts the program copied (OSC 52) since the last update
    dropped: int = 0  # history lines dropped so far from the oldest end (`Screen.dropped`)
    cursor_style: int = 0  # DECSCUSR: 0 the terminal's own, 1/2 block, 3/4 underline, 5/6 bar (odd: blinking)
    wrapped: frozenset[int] = frozenset()  # rows among `lines` that go on in the next row


class Screen(ModeReads, ScreenFixes, HeldOutput, ScreenReads):
    def __init__(self, cols: int = 80, rows: int = 24, scrollback: int = 10_000) -> None:
        styled = min(scrollback, STYLED_HISTORY)
        self._vt = avt.Vt(cols, rows, scrollback_limit=styled)
        self._plain = PlainHistory(scrollback - styled)
        self._cols, self._rows = cols, rows
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._modes = ModeScanner()
        self._repeats = RepeatClamp()
        self._pen = Decorations()
        self._dirty: set[int] = set(range(rows))
        # The lines in pyavt's styled scrollback, counted (walking them all) only after output
        # that may have changed it: None until then.
        self._styled_count: int | None = 0
        self.agent = AgentHooks(rows)  # what agent-state detection reads (screen_agent)
        # One look tells whether the scanners can skip a chunk (see `quiet`); tests set None to
        # compare with every scanner looking at every chunk.
        self._check_quiet: Callable[[bytes, str, str], bool] | None = is_quiet
        # The default (foreground, background) of the terminal the latest UI runs in, as OSC
        # 10/11 answer them (`rgb:...`), for a program that asks; None while unknown: no answer.
        self.colors: tuple[str | None, str | None] = (None, None)
        self._init_held(cols, styled)

    # -- input -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> bytes:
        """Feed child output; returns the replies to device queries, to write back."""
        text = self._decoder.decode(data)
        # (With the start of a sequence the clamp held back from the last chunk: this one may end it.)
        held = self._repeats.held
        plain = self._plain_chunk(data, text, held)
        if not text or self._check_quiet is None:
            calm = False
        else:  # plain lines hold nothing a scanner acts on
            calm = plain is not None or self._check_quiet(data, text, held)
        text, repeats = self._repeats.clamp(text, self._cols, self._rows, calm)
        # Blanks without inverse, underline, strike-through (`pen`: a large chunk the scanners skip
        # is not looked at; plain lines, mostly held back, are where they are drawn: `screen_held`)
        if plain is None:
            self._flush()  # (the lines held back come first, for the pen as for pyavt)
            if (wrapped := self._pen.wrap(text, not calm or len(text) <= LOOK_SMALL)) is not text:
                text, repeats = wrapped, repeat_ends(wrapped) if repeats else []
        queries: dict[int, list[str]] = {}
        for query in self._modes.scan(text, calm) if text else ():
            queries.setdefault(query.end, []).append(query.kind)
        if text:
            self.agent.scan(text, calm)
        if plain is not None and not queries and not repeats:
            self._take_plain(text, plain)
            return b""
        self._flush()
        if not text:
            return b""
        self._layout_ok = None  # a sequence may have changed it
        self._ground = scroll_skip.ends_in_ground(text, self._ground)
        per_feed = max(1, EVICT_BUDGET // (self._rows + 1))  # one REP pushes out <= rows+1 lines
        if not queries and len(repeats) <= per_feed:
            self._feed_text(text, calm)
            return b""
        answers = []
        start = 0
        # Feed up to each query so DSR reports the cursor at that point, and in pieces of at
        # most `per_feed` REPs so the lines they push out stay bounded.
        for cut in sorted(set(queries) | set(repeats[per_feed - 1::per_feed])):
            self._feed_text(text[start:cut])
            start = cut
            for kind in queries.get(cut, ()):
                if kind in FIXES:  # what pyavt gets wrong or leaves out (see `screen_fixes`)
                    start += self._fix(kind)
                elif (reply := replies.answer(kind, self._rows, self._cols, self.colors)) is not None:
                    answers.append(reply)
                else:  # DSR 6; in the pending-wrap state the cursor is on the last column
                    row, col = self._vt.cursor.row, min(self._vt.cursor.col, self._cols - 1)
                    answers.append(f"\x1b[{row + 1};{col + 1}R")
        self._feed_text(text[start:])
        return "".join(answers).encode()

    def _feed_text(self, text: str, quiet: bool = False) -> None:
        text, orphans = clusters.compose(text, quiet) if text else (text, [])  # zero-width: the base's cell
        start = 0
        for offset, marks in orphans:
            self._feed_vt(text[start:offset])
            row, col, _visible = self.cursor
            if col:  # joined to the cell left of the cursor, as tmux does; dropped at the left edge
                self._feed_vt(clusters.rejoin(self._vt.view()[row], min(col, self._cols) - 1, marks))
            start = offset
        self._feed_vt(text[start:])

    def _feed_vt(self, text: str) -> None:
        if text:
            changed, evicted = self._vt.feed_str(text)
            if evicted:  # lines pushed out: pyavt's scrollback is at its limit, and stays there
                # until a resize, ED 3 or RIS (`screen_fixes`) -- a full history costs no count
                self._styled_count = self._styled
            elif len(changed) >= self._rows and self._styled_count != self._styled:
                self._styled_count = None  # (pyavt marks every row of a scroll changed)
            self._dirty.update(changed)
            self.agent.changed(changed)
            self._keep_plain(evicted)

    def _keep_plain(self, evicted: list[avt.Line]) -> None:
        self._plain.push(evicted)

    @property
    def unsettled(self) -> int:
        """Lines pushed out of the styled scrollback whose text is not read yet (one more
        while output is held back: `settle` draws it too)."""
        return self._plain.unsettled + bool(self._pending)

    def settle(self) -> int:
        self._flush()
        return self._plain.settle()

    def resize(self, cols: int, rows: int) -> None:
        self._flush()
        self._layout_ok = None
        _changed, evicted = self._vt.resize(cols, rows)
        self._keep_plain(evicted)
        self._cols, self._rows = cols, rows
        self._measure = avt.Vt(cols, 1)
        self._dirty = set(range(rows))
        self.agent.changed(range(rows))
        self._styled_count = None

    # -- state -----------------------------------------------------------------------------

    @property
    def cols(self) -> int:
        return self._cols

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def cursor(self) -> tuple[int, int, bool]:
        held = self._held_cursor()
        if held is not None:
            return held
        self._flush()
        cursor = self._vt.cursor
        return cursor.row, cursor.col, cursor.visible

    @property
    def app_cursor_keys(self) -> bool:
        self._flush()
        return self._vt.cursor_key_app_mode

    @property
    def history(self) -> int:
        """Scrollback lines above the view (0 on the alternate screen): every frame carries it,
        and a UI scrolled back keeps its place by it -- exact, not a recent count."""
        self._flush()
        return self._drawn_history()

    def _drawn_history(self) -> int:
        """The history as drawn so far (output held back not counted): the plain lines and
        pyavt's, those counted again only once output scrolled (`_feed_vt`)."""
        if self.alt_screen:
            return 0
        if self._styled_count is None:
            self._styled_count = max(0, len(self._vt.lines()) - self._rows)
        return len(self._plain) + self._styled_count

    def _counted_history(self, styled: int) -> None:
        """pyavt's scrollback holds `styled` lines (known without walking them)."""
        self._styled_count = styled

    @property
    def dropped(self) -> int:
        """History lines dropped so far from the oldest end (the history was full, or erased):
        history row `i` (0 the oldest kept) is row `dropped + i` for good, wherever output
        moves it. (Lines a flood pushes past the whole history unseen count one row each,
        even one that wrapped: the rows kept before it are all gone by then anyway.)"""
        return self._plain.dropped

    @property
    def total_lines(self) -> int:
        return self.history + self._rows

    def visible_rows(self) -> list[str]:
        """The visible rows as plain text, top first (cached per row; see screen_agent)."""
        held = self._held_rows(self._rows)
        if held is not None:  # the detector looking 10 times a second draws nothing held back
            return [scroll_skip.row_text(row) for row in held]
        self._flush()
        return self.agent.rows(self._vt.view)

    # -- output ----------------------------------------------------------------------------

    def _update(self, rows: set[int], full: bool, clipboard: tuple[str, ...] = ()) -> ScreenUpdate:
        lines = view_rows(self._vt, None if full else rows) if rows else {}
        return self._frame(lines, full, self.cursor, self.history, clipboard, wrapped=wrapped_rows(self._vt.view(), lines))

    def _frame(self, lines: dict[int, StyledLine], full: bool, cursor: tuple[int, int, bool], history: int,
               clipboard: tuple[str, ...], dropped: int | None = None, wrapped: frozenset[int] = frozenset()) -> ScreenUpdate:
        # (pyavt's modes: held-back output, plain lines, changes none of them)
        return ScreenUpdate(
            self._cols, self._rows, lines, full, cursor, history, self.alt_screen, self.title,
            self.bracketed_paste, self._vt.cursor_key_app_mode, next(_SERIALS), self._modes.mouse, clipboard,
            self._plain.dropped if dropped is None else dropped, self._modes.cursor_style, wrapped,
        )

    def take_update(self, full: bool = False) -> ScreenUpdate:
        """The rows changed since the last call (all of them when `full`), consuming them."""
        clipboard = tuple(c.text for c in self.take_clipboard()) if self._modes.clipboard else ()
        held = self._held_frame()  # a flood the held lines fill the screen with: drawn apart
        if held is not None:
            lines, cursor, history, dropped = held
            self._dirty = set()
            return self._frame(lines, True, cursor, history, clipboard, dropped)
        self._flush()
        rows = set(range(self._rows)) if full else self._dirty
        self._dirty = set()
        return self._update(rows, full or len(rows) >= self._rows, clipboard)

    def take_dirty(self) -> set[int]:
        """Consume the changed rows without building styled lines (nobody is looking)."""
        rows, self._dirty = self._dirty, set()
        return rows

    def snapshot(self) -> ScreenUpdate:
        self._flush()
        return self._update(set(range(self._rows)), True)
