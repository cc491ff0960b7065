"""Output held back from pyavt under a flood (mixed into `Screen`; the why and the rules are
in `scroll_skip`).

Plain lines that arrive while the cursor is on the bottom row gather in `_pending` instead of
being drawn (from the first line end on the bottom row: a read that starts higher up draws the
lines down to it). `_flush` draws them when someone looks at the screen (every method of
`Screen` that reads it calls it first), or once PENDING_MAX characters have gathered: only the
lines pyavt keeps go through it, the ones before go to the plain history as printed. Lines
that would fall off even the plain history are dropped as they pile up (`_trim`). The last rows,
the cursor and the visible rows are read from the held lines when they fill them
(`_held_rows`), so a poller and the agent-state detector leave the lines piling up.
"""

from __future__ import annotations

from typing import Any

import avt

from . import clusters, scroll_skip
from .rows import StyledLine, view_rows

# Held-back output is drawn once this many characters have gathered, if nobody looked sooner
# (a UI watching the tab looks at every frame): what it costs to hold.
PENDING_MAX = 2_000_000
# Held lines beyond those the screen and its history keep are dropped once there are this
# many (`_trim`), in steps that each cost the reader well under a millisecond. Drawing 2 MB of
# `seq`'s output at PENDING_MAX held the reader 8-30 ms, long enough for `seq` to fill the
# PTY and wait: ~40 ms of a 0.35 s `seq 1 600000`.
TRIM_LINES = 8192


class HeldOutput:
    _vt: Any
    _plain: Any
    _cols: int
    _rows: int

    def _init_held(self, cols: int, styled: int) -> None:
        # The text held back (it starts with the `\r\n` that scrolls the bottom row up), its
        # line ends and its characters. Tests set _skip_scroll False to compare with a screen
        # that draws every line.
        self._skip_scroll = True
        self._pending: list[str] = []
        self._pending_counts: list[int] = []  # the line ends in each piece of `_pending`
        self._pending_breaks = self._pending_size = 0
        self._after_cr = False  # the last read ended with `\r` (its `\n` may begin the next)
        self._ground = True  # pyavt's parser is between sequences (scroll_skip.ends_in_ground)
        self._layout_ok: bool | None = None  # scroll_skip.default_layout, until the next sequence
        self._styled = styled
        self._measure = avt.Vt(cols, 1)  # the width of a held-back line (scroll_skip.width)

    @property
    def _keep(self) -> int:
        """The lines pyavt holds: the styled scrollback and the screen."""
        return self._styled + self._rows

    def _plain_chunk(self, data: bytes, text: str, held: str) -> scroll_skip.Plain | None:
        """`data` (`text` decoded; `held`, what the REP clamp held from the last read) as plain
        lines, or None (also when skipping is off)."""
        after_cr, self._after_cr = self._after_cr, data.endswith(b"\r")
        if not text or not self._skip_scroll:
            return None
        plain = scroll_skip.plain(data, held, after_cr)
        return None if plain is None or clusters.may_join(data, text) else plain

    def _held_cursor(self) -> tuple[int, int, bool] | None:
        """On the bottom row, after the last line held back (None when nothing is)."""
        held = self._held_rows(1)
        if held is None:
            return None
        return self._rows - 1, scroll_skip.width(held[0], self._cols, self._measure), self._vt.cursor.visible

    def _take_plain(self, text: str, plain: scroll_skip.Plain) -> None:
        """Plain lines: held back when they may scroll past unseen, else drawn now."""
        if self._pending:
            self._pending.append(text)
            self._pending_counts.append(plain.breaks)
            self._pending_breaks += plain.breaks
            self._pending_size += len(text)
            if self._pending_breaks >= self._keep + self._plain.limit + TRIM_LINES:
                self._trim()
            if self._pending_size >= PENDING_MAX:
                self._flush()
            return
        # Held-back output starts at a line end that scrolls the bottom row up: the chunk's first.
        start = text.find("\r\n")
        if start < 0:
            self._draw_plain(text)
            return
        self._draw_plain(text[:start])
        pairs = plain.pairs
        below = self._rows - 1 - self._vt.cursor.row
        if below > 0 and self._ground and self._default_layout():
            # Above the bottom row (`clear; seq 1 600000`): the line ends that bring the cursor
            # down are drawn, the rest of what may be thousands of lines is held.
            end = start
            for _ in range(below):
                end = text.find("\r\n", end + 2)
                if end < 0:
                    self._draw_plain(text[start:])
                    return
            self._draw_plain(text[start:end])
            start, pairs = end, pairs - below
        if self._ground and self._vt.cursor.row == self._rows - 1 and self._default_layout():
            self._pending, self._pending_counts = [text[start:]], [pairs]
            self._pending_breaks = pairs
            self._pending_size = len(text) - start
        else:
            self._draw_plain(text[start:])

    def _draw_plain(self, text: str) -> None:
        if text:
            self._feed_text(self._pen.wrap(text), True)  # type: ignore[attr-defined]
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

    def _held_frame(self) -> tuple[dict[int, StyledLine], tuple[int, int, bool], int, int] | None:
        """The screen as the held-back lines will leave it, when they fill it: its styled rows,
        the cursor, the history length and the lines dropped from it -- drawn on a scratch
        screen of its size, not by drawing the held text into pyavt. A UI watching a flood gets
        its frames this way: a flush per frame held the tab's lock (and the GIL) ~4 ms of every
        50 at 140x45, while the reader waited and the child blocked on a full PTY. (None when
        the held lines do not fill the screen, or one of those on it would not fit in a row.)"""
        rows = self._rows
        shown = self._held_rows(rows)
        if shown is None:
            return None
        text = "".join(self._pending)  # (not kept joined: `_trim` drops whole pieces)
        start = len(text) - sum(map(len, shown)) - 2 * rows  # the line end before the top row
        # Each row is made by the line end before it, scrolling a blank one in with the pen of
        # that moment (its colours fill the row's rest): the scratch screen scrolls them in too.
        scratch = avt.Vt(self._cols, rows, scrollback_limit=0)
        shown = self._pen.copy().wrap(scroll_skip.pen_at(text, start, self._vt.dump) + text[start:])  # type: ignore[attr-defined]
        scratch.feed_str(f"\x1b[{rows}H" + shown)
        # (The history: what is drawn, plus the line ends held, up to what the scrollback keeps.)
        grown, most = self._drawn_history() + self._pending_breaks, self._plain.limit + self._styled  # type: ignore[attr-defined]
        dropped = self._plain.dropped + max(0, grown - most)
        return view_rows(scratch), (rows - 1, scratch.cursor.col, self._vt.cursor.visible), min(grown, most), dropped

    def _flush(self) -> None:
        """Draw the held-back lines: only those pyavt keeps when there are more (see
        `scroll_skip`); the ones before them go to the plain history as printed."""
        if not self._pending:
            return
        text, breaks = "".join(self._pending), self._pending_breaks
        self._pending, self._pending_counts, self._pending_breaks, self._pending_size = [], [], 0, 0
        self._draw_held(text, breaks)

    def _trim(self) -> None:
        """Drop the held pieces whose lines would fall off the end of the history anyway: those
        before the last `keep` + `limit` line ends, which `_draw_held` would never draw nor
        keep. Their pen is carried in a piece of its own. The piece left first may begin in
        the middle of a line, which is older than any kept, or with the `\n` of a line end
        whose `\r` was dropped, counted with that piece: hence one line end to spare."""
        pieces, counts = self._pending, self._pending_counts
        need, left, drop = self._keep + self._plain.limit + 1, self._pending_breaks, 0
        while drop < len(pieces) - 1 and left - counts[drop] >= need:
            left -= counts[drop]
            drop += 1
        if not drop:
            return
        dropped = "".join(pieces[:drop])
        # (A line end cut between two pieces ends the dropped text with its `\r`: counted here,
        # as the leftover `\n` is not counted when the rest is drawn.)
        self._plain.drop(dropped.count("\r\n") + dropped.endswith("\r"))
        pen = scroll_skip.carry(dropped, self._vt.dump)
        del pieces[:drop], counts[:drop]
        if pen:
            pieces.insert(0, pen)
            counts.insert(0, 0)
        self._pending_breaks = left
        self._pending_size -= len(dropped) - len(pen)

    def _draw_held(self, text: str, breaks: int, again: bool = True) -> None:
        keep, limit = self._keep, self._plain.limit
        wrap = self._pen.wrap  # type: ignore[attr-defined]  # (blanks without inverse etc.: `pen`)
        if breaks <= keep:
            self._feed_vt(wrap(text))  # type: ignore[attr-defined]
            return
        # The last lines: those pyavt keeps, and before them those the plain history keeps.
        lines = text.rsplit("\r\n", keep + limit)
        wide = scroll_skip.last_wide(lines, self._cols)
        if wide:  # it would wrap: drawn from there on; the lines before it may still be skipped
            cut = len(text) - sum(map(len, lines[wide:])) - 2 * (len(lines) - wide)
            if again:
                self._draw_held(text[:cut], breaks - (len(lines) - wide), again=False)
            else:
                self._feed_vt(wrap(text[:cut]))  # type: ignore[attr-defined]
            self._feed_vt(wrap(text[cut:]))  # type: ignore[attr-defined]
            return
        # The text starts with a line end, so the last `keep` line ends scroll exactly the lines
        # pyavt holds (one row each) and push out everything there before.
        kept = len(text) - sum(map(len, lines[-keep:])) - 2 * keep
        if len(lines) > keep + limit:  # the lines before: they would fall off the history too
            self._plain.drop(lines[0].count("\r\n"))
        self._feed_vt(wrap(scroll_skip.pen(text[:kept]) + text[kept:]))  # type: ignore[attr-defined]
        self._plain.push(lines[max(1, len(lines) - keep - limit):len(lines) - keep])
        # pyavt's styled scrollback is full now: the history is known without walking its lines
        # (`history`: ~2 ms at 1000 lines, just when a flood's last frame waits for it).
        self._counted_history(self._styled)  # type: ignore[attr-defined]
