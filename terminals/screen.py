"""The VT screen of one tab, on pyavt (asciinema's Rust `avt`), behind a small interface.

Bytes go in undecoded: an incremental UTF-8 decoder keeps a multi-byte character that is
split across two reads whole; zero-width characters join their base's cell (`clusters`).
Out come styled rows (for the UI, built by `rows`, measured as Rich measures them: `cellfit`),
plain text of the last N lines of scrollback and screen (for `terminal-read` and the
coordinator), the cursor, the title, the modes (`sequences`), the clipboard sets (OSC 52), the
rows that changed since the last look, and the replies to device queries (DA1, DSR 6n) to write
back to the child.

Lines pushed out of pyavt's styled scrollback go to a `PlainHistory`, which reads their text
lazily (`settle`: when the output is quiet, or when someone reads the history). Under a flood
of plain lines, the lines that would only scroll past are not drawn at all: output is held
back until the screen is looked at and only what stays in pyavt goes through it
(`scroll_skip`); every method that reads the screen first brings it up to date (`_flush`).
"""

from __future__ import annotations

import codecs
import itertools
import time
from dataclasses import dataclass
from typing import Callable

import avt

from . import clusters, scroll_skip
from .history import PlainHistory
from .quiet import is_quiet
from .rows import DEFAULT_STYLE, CellStyle, Color, Segment, StyledLine, styled_line, view_rows
from .screen_agent import AgentHooks
from .screen_fixes import FIXES, ScreenFixes
from .sequences import ModeScanner
from .vt_limits import RepeatClamp

__all__ = ["Screen", "ScreenUpdate", "CellStyle", "Color", "Segment", "StyledLine", "DEFAULT_STYLE",
           "styled_line"]
DA1_REPLY = "\x1b[?62;22c"  # "VT220 with ANSI colour", what xterm-alikes answer
HISTORY_REFRESH = 0.25  # counting history lines walks all of them: at most 4 times a second
# pyavt keeps ~24 bytes per cell, so 10,000 lines of 120 columns cost ~29 MB a tab. The most
# recent STYLED_HISTORY lines of scrollback stay in pyavt with their colours; older lines are
# kept as plain text (~1/20 of the memory), which is what reading them back needs.
STYLED_HISTORY = 1000
# pyavt returns every line a feed pushes out of the scrollback at once (~24 bytes per cell):
# a feed is cut after enough REPs to push out about this many lines (see vt_limits).
EVICT_BUDGET = 1024
# Plain output held back (`scroll_skip`) is drawn once this many characters have gathered, if
# nobody looked sooner (a UI watching the tab looks at every frame): what it costs to hold.
PENDING_MAX = 2_000_000
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


class Screen(ScreenFixes):
    def __init__(self, cols: int = 80, rows: int = 24, scrollback: int = 10_000) -> None:
        styled = min(scrollback, STYLED_HISTORY)
        self._vt = avt.Vt(cols, rows, scrollback_limit=styled)
        self._plain = PlainHistory(scrollback - styled)
        self._cols, self._rows = cols, rows
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._modes = ModeScanner()
        self._repeats = RepeatClamp()
        self._dirty: set[int] = set(range(rows))
        self._history = 0
        self._history_checked = 0.0
        self.agent = AgentHooks(rows)  # what agent-state detection reads (screen_agent)
        # One look tells whether the scanners can skip a chunk (see `quiet`); tests set None to
        # compare with every scanner looking at every chunk.
        self._check_quiet: Callable[[bytes, str, str], bool] | None = is_quiet
        # Plain lines held back from pyavt (see `scroll_skip`): the text (it starts with the
        # `\r\n` that scrolls the bottom row up), its line ends and its characters.
        # Tests set _skip_scroll False to compare with a screen that draws every line.
        self._skip_scroll = True
        self._pending: list[str] = []
        self._pending_breaks = self._pending_size = 0
        self._after_cr = False  # the last read ended with `\r` (its `\n` may begin the next)
        self._ground = True  # pyavt's parser is between sequences (scroll_skip.ends_in_ground)
        self._layout_ok: bool | None = None  # scroll_skip.default_layout, until the next sequence
        self._styled = styled
        self._keep = styled + rows  # the lines pyavt holds: styled scrollback and screen
        self._measure = avt.Vt(cols, 1)  # the width of a held-back line (scroll_skip.width)

    # -- input -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> bytes:
        """Feed child output; returns the replies to device queries, to write back."""
        text = self._decoder.decode(data)
        # (With the start of a sequence the clamp held back from the last chunk: this one may end it.)
        held = self._repeats.held
        after_cr, self._after_cr = self._after_cr, data.endswith(b"\r")
        plain = None
        if text and self._skip_scroll:
            plain = scroll_skip.plain(data, held, after_cr)
            if plain is not None and clusters.may_join(data, text):
                plain = None
        if not text or self._check_quiet is None:
            calm = False
        else:  # plain lines hold nothing a scanner acts on
            calm = plain is not None or self._check_quiet(data, text, held)
        text, repeats = self._repeats.clamp(text, self._cols, self._rows, calm)
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
        replies = []
        start = 0
        # Feed up to each query so DSR reports the cursor at that point, and in pieces of at
        # most `per_feed` REPs so the lines they push out stay bounded.
        for cut in sorted(set(queries) | set(repeats[per_feed - 1::per_feed])):
            self._feed_text(text[start:cut])
            start = cut
            for kind in queries.get(cut, ()):
                if kind in FIXES:  # what pyavt gets wrong or leaves out (see `screen_fixes`)
                    start += self._fix(kind)
                elif kind == "da1":
                    replies.append(DA1_REPLY)
                else:  # DSR; in the pending-wrap state the cursor is on the last column
                    row, col = self._vt.cursor.row, min(self._vt.cursor.col, self._cols - 1)
                    replies.append(f"\x1b[{row + 1};{col + 1}R")
        self._feed_text(text[start:])
        return "".join(replies).encode()

    def _take_plain(self, text: str, plain: scroll_skip.Plain) -> None:
        """Plain lines: held back when they may scroll past unseen, else drawn now."""
        if self._pending:
            self._pending.append(text)
            self._pending_breaks += plain.breaks
            self._pending_size += len(text)
            if self._pending_size >= PENDING_MAX:
                self._flush()
            return
        # Held-back output starts at a line end that scrolls the bottom row up: the chunk's first.
        start = text.find("\r\n")
        if start < 0:
            self._draw_plain(text)
            return
        self._draw_plain(text[:start])
        if self._ground and self._vt.cursor.row == self._rows - 1 and self._default_layout():
            self._pending = [text[start:]]
            self._pending_breaks = plain.pairs
            self._pending_size = len(text) - start
        else:
            self._draw_plain(text[start:])

    def _draw_plain(self, text: str) -> None:
        if text:
            self._feed_text(text, True)
            self._ground = scroll_skip.ends_in_ground(text, self._ground)

    def _default_layout(self) -> bool:
        if self._layout_ok is None:
            self._layout_ok = scroll_skip.default_layout(self._vt.dump())
        return self._layout_ok

    def _held_rows(self, count: int) -> list[str] | None:
        """The last `count` rows as held back (colours and all), when held-back lines fill
        them: after a flush they would be the bottom rows, the last one the cursor's. A reader
        polling the last lines (`terminal-read`) then leaves the lines piling up."""
        if not self._pending or not 0 < count <= self._pending_breaks:
            return None
        found, pieces = 0, []
        for piece in reversed(self._pending):  # (a line end cut in two is not counted: safe)
            pieces.append(piece)
            found += piece.count("\r\n")
            if found >= count:
                break
        rows = "".join(reversed(pieces)).rsplit("\r\n", count)[1:]
        return rows if scroll_skip.fit(rows, self._cols) else None

    def _flush(self) -> None:
        """Draw the held-back lines: only those pyavt keeps when there are more (see
        `scroll_skip`); the ones before them go to the plain history as printed."""
        if not self._pending:
            return
        text, breaks = "".join(self._pending), self._pending_breaks
        self._pending, self._pending_breaks = [], 0
        self._draw_held(text, breaks)

    def _draw_held(self, text: str, breaks: int, again: bool = True) -> None:
        keep, limit = self._keep, self._plain.limit
        if breaks <= keep:
            self._feed_vt(text)
            return
        # The last lines: those pyavt keeps, and before them those the plain history keeps.
        lines = text.rsplit("\r\n", keep + limit)
        wide = scroll_skip.last_wide(lines, self._cols)
        if wide:  # it would wrap: drawn from there on; the lines before it may still be skipped
            cut = len(text) - sum(map(len, lines[wide:])) - 2 * (len(lines) - wide)
            if again:
                self._draw_held(text[:cut], breaks - (len(lines) - wide), again=False)
            else:
                self._feed_vt(text[:cut])
            self._feed_vt(text[cut:])
            return
        # The text starts with a line end, so the last `keep` line ends scroll exactly the lines
        # pyavt holds (one row each) and push out everything there before.
        kept = len(text) - sum(map(len, lines[-keep:])) - 2 * keep
        self._feed_vt(scroll_skip.pen(text[:kept]) + text[kept:])
        self._plain.push(lines[max(1, len(lines) - keep - limit):len(lines) - keep])

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
        self._keep = self._styled + rows
        self._measure = avt.Vt(cols, 1)
        self._dirty = set(range(rows))
        self.agent.changed(range(rows))
        self._history_checked = 0.0

    # -- state -----------------------------------------------------------------------------

    @property
    def cols(self) -> int:
        return self._cols

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def cursor(self) -> tuple[int, int, bool]:
        held = self._held_rows(1)
        if held is not None:  # on the bottom row, after the last line held back
            return self._rows - 1, scroll_skip.width(held[0], self._cols, self._measure), self._vt.cursor.visible
        self._flush()
        cursor = self._vt.cursor
        return cursor.row, cursor.col, cursor.visible

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
    def app_cursor_keys(self) -> bool:
        self._flush()
        return self._vt.cursor_key_app_mode

    @property
    def history(self) -> int:
        """Scrollback lines above the view, recounted at most every HISTORY_REFRESH s."""
        self._flush()
        now = time.monotonic()
        if now - self._history_checked >= HISTORY_REFRESH:
            styled = max(0, len(self._vt.lines()) - self._rows)
            self._history = 0 if self.alt_screen else len(self._plain) + styled
            self._history_checked = now
        return self._history

    @property
    def total_lines(self) -> int:
        self._history_checked = 0.0
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
        return ScreenUpdate(
            self._cols, self._rows, lines, full, self.cursor, self.history,
            self.alt_screen, self.title, self.bracketed_paste, self.app_cursor_keys, next(_SERIALS),
            self._modes.mouse, clipboard,
        )

    def take_update(self, full: bool = False) -> ScreenUpdate:
        """The rows changed since the last call (all of them when `full`), consuming them."""
        self._flush()
        rows = set(range(self._rows)) if full else self._dirty
        self._dirty = set()
        clipboard = tuple(c.text for c in self.take_clipboard()) if self._modes.clipboard else ()
        return self._update(rows, full or len(rows) >= self._rows, clipboard)

    def take_dirty(self) -> set[int]:
        """Consume the changed rows without building styled lines (nobody is looking)."""
        rows, self._dirty = self._dirty, set()
        return rows

    def snapshot(self) -> ScreenUpdate:
        self._flush()
        return self._update(set(range(self._rows)), True)

    def history_page(self, offset: int, count: int) -> tuple[int, int, list[StyledLine]]:
        """A page of history for a view scrolled `offset` rows up: up to `count` history rows
        from `offset` rows above the screen's top, oldest first. Returns (total history rows,
        the offset used (at most the total), the rows)."""
        if self.alt_screen:
            return 0, 0, []
        self.settle()
        total = self.total_lines - self._rows  # an exact count, not the cached one
        offset = max(0, min(offset, total))
        start = total - offset
        return total, offset, self.history_lines(start, min(total, start + count))

    def history_lines(self, start: int, stop: int) -> list[StyledLine]:
        """Scrollback rows [start, stop), 0 being the oldest kept."""
        if self.alt_screen:
            return []
        self.settle()
        plain = len(self._plain)
        lines = self._vt.lines()
        history = plain + max(0, len(lines) - self._rows)
        start, stop = max(0, start), min(stop, history)
        rows: list[StyledLine] = [((text, DEFAULT_STYLE),) if text else () for text in self._plain.lines(start, stop)]
        if stop > plain:
            rows.extend(styled_line(line) for line in lines[max(start, plain) - plain : stop - plain])
        return rows

    def text(self, last_n: int = 40) -> str:
        """Plain text of the last `last_n` lines of scrollback and screen.

        Blank rows at the bottom (below both the cursor and the last printed row) are left
        out first, so a shell that printed three lines reads as three lines, not a screenful.
        """
        held = self._held_rows(last_n) if 0 < last_n <= self._rows else None
        if held is not None:  # the cursor is on the bottom row: these are the last rows
            return "\n".join(clusters.restore(scroll_skip.row_text(row)) for row in held)
        self._flush()
        lines = self._vt.view()
        texts: dict[int, str] = {}

        def row(index: int) -> str:  # only the rows asked for are turned into text
            if index not in texts:
                texts[index] = clusters.restore(lines[index].text.rstrip())
            return texts[index]

        keep = self._vt.cursor.row + 1
        for index in range(len(lines) - 1, keep - 1, -1):
            if row(index):
                keep = index + 1
                break
        if last_n <= keep or self.alt_screen:
            return "\n".join(row(i) for i in range(max(0, keep - last_n), keep))
        view = [row(i) for i in range(keep)]
        wanted = last_n - len(view)
        self.settle()
        scrollback = self._vt.lines()
        styled = [clusters.restore(line.text.rstrip()) for line in scrollback[: max(0, len(scrollback) - self._rows)]]
        history = styled[-wanted:]
        if len(history) < wanted:
            history = self._plain.last(wanted - len(history)) + history
        return "\n".join(history + view)

