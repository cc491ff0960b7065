"""What a `Screen` does beyond pyavt (mixed into it): the modes, the clipboard, the cells, and
the fixes at the places `sequences.ModeScanner` marks, where pyavt does something else than
xterm and tmux:

- DECCOLM (`CSI ?3h/l`) is ignored by pyavt; xterm and tmux clear the screen and home the
  cursor (without resizing);
- RIS and DECSTR leave the cursor keys in application mode in pyavt;
- ED 2, and ED 0 from the top-left corner, erase the screen in pyavt; tmux (`scroll-on-clear`,
  on by default), VTE, Windows Terminal and Alacritty scroll the rows in use into the history
  first, so what ctrl+l cleared in a shell can be scrolled back to: so do we, on the primary
  screen (pyavt scrolls them up under a full-screen margin, then its state is put back from
  `dump`, as before the ED);
- RIS empties pyavt's scrollback with the rest; xterm, tmux and WezTerm keep the history (the
  `reset` users type to mend a garbled terminal took every line of it): the screen scrolls
  into it as for ED 2, then pyavt's history lines go to the plain history, their text kept
  (their colours are not; a full history loses its oldest STYLED_HISTORY lines);
- ED 3 (`CSI 3 J`, erase the saved lines) is ignored by pyavt; xterm and tmux empty the
  scrollback (`clear` sends it, as does the `clearTerminal` of Node's ansi-escapes, which
  CLIs built on Ink carry: a cleared screen's old output stayed in the history). pyavt
  cannot drop its scrollback, so its screen is carried into a new one by `dump` (which
  restores every mode, the pen, the cursor and the alternate screen);
- DECALN (`ESC # 8`, the screen filled with E: vttest's alignment screens) leaves pyavt's
  margins and cursor as they were; VT510, xterm and tmux reset the margins and home the
  cursor: a DECSTBM without parameters follows it, which does both;
- RI (`ESC M`) in origin mode moves the cursor to the wrong row in pyavt (down, counted from
  the top margin) unless it is on the top margin: it is replaced by CUU, which stops at the
  top margin, and, when the cursor was there, SD, which scrolls the region down.
"""

from __future__ import annotations

from typing import Any

import avt

from .osc52 import ClipboardSet
from .sequences import ScreenModes

# kind -> what to feed pyavt instead of (or after) the sequence
FIXES = {"deccolm": "\x1b[H\x1b[2J", "decaln": "\x1b[r", "reset": "\x1b[?1l", "ri": "\x1b[A", "ed3": "", "ris": "", "ed0": "", "ed2": ""}
# What a fresh pyavt's layout is, for a `dump` to be replayed over: full-screen margins, origin
# mode off, replace mode, autowrap on, the default pen and character sets, the cursor home.
_FRESH = "\x1b[r\x1b[?6l\x1b[4l\x1b[?7h\x1b[0m\x1b(B\x1b)B\x0f\x1b[H"


class ScreenFixes:
    _vt: Any
    _modes: Any
    _styled_count: int | None

    def _fix(self, kind: str) -> int:
        """Apply the fix for `kind`; returns how many characters of the sequence to skip."""
        if kind == "ed3":
            self._erase_history()
            return 0
        if kind == "ris":
            self._keep_history_through_reset()
            return 0  # (the RIS itself follows)
        if kind in ("ed0", "ed2"):
            if kind == "ed2" or (self._vt.cursor.row, self._vt.cursor.col) == (0, 0):
                self._scroll_on_clear()
            return 0  # (the ED itself follows)
        if kind == "reset":  # (after a RIS, even one split between two reads: pyavt's history is gone)
            self._styled_count = None
        row = self._vt.cursor.row
        self._feed_text(FIXES[kind])  # type: ignore[attr-defined]
        if kind == "ri" and self._vt.cursor.row == row:
            self._feed_text("\x1b[T")  # type: ignore[attr-defined]  # CUU stopped at the top margin: RI scrolls the region down
        return 2 if kind == "ri" else 0

    def _erase_history(self) -> None:
        """ED 3: the history goes (counted as dropped), the screen stays as it is. On the
        alternate screen it is the primary screen's history that goes, as in tmux."""
        state = self._vt.dump()
        if self._modes.alt_screen:
            # pyavt counts the alternate screen's rows here; the old Vt is dropped below, so it
            # may go back to the primary screen to have its history rows counted.
            self._vt.feed_str("\x1b[?1047l")
        self._plain.drop(max(0, len(self._vt.lines()) - self._rows))  # type: ignore[attr-defined]
        self._plain.clear()  # type: ignore[attr-defined]
        vt = avt.Vt(self._cols, self._rows, scrollback_limit=self._styled)  # type: ignore[attr-defined]
        vt.feed_str(state)
        self._vt = vt
        self._counted_history(0)  # type: ignore[attr-defined]

    def _scroll_on_clear(self) -> None:
        """Before the screen is erased: its rows down to the last with text scroll into the history."""
        used = next((row + 1 for row, line in reversed(list(enumerate(self._vt.view()))) if line.text.strip()), 0)
        if not used:
            return
        state = self._vt.dump()
        rows = self._rows  # type: ignore[attr-defined]
        self._feed_vt(f"\x1b[r\x1b[{rows}H" + "\n" * used)  # type: ignore[attr-defined]
        self._feed_vt(_FRESH + state)  # type: ignore[attr-defined]  # (the rows it draws are erased next)

    def _keep_history_through_reset(self) -> None:
        """Before a RIS: the primary screen's rows in use scroll into its history, and pyavt's
        history lines join the plain history (from the alternate screen pyavt is taken back to
        the primary one first, whose history it would not count; the RIS leaves it anyway)."""
        self._vt.feed_str("\x1b[?1047l")
        self._scroll_on_clear()
        lines = self._vt.lines()
        self._keep_plain(lines[:max(0, len(lines) - self._rows)])  # type: ignore[attr-defined]

    @property
    def modes(self) -> ScreenModes:
        """What the program asked for: mouse reporting, focus events, bracketed paste, ..."""
        return self._modes.modes(self._vt.cursor_key_app_mode)

    def view_lines(self) -> list[Any]:
        """The visible rows as pyavt cells (placeholders in them: see `clusters.restore`)."""
        self._flush()  # type: ignore[attr-defined]  # output held back is drawn first
        return self._vt.view()

    def cell_lines(self) -> tuple[list[str], list[Any]]:
        """The whole history and screen: the oldest history lines as plain text (kept so),
        then the rest as pyavt lines (the styled history, then the screen)."""
        self._flush()  # type: ignore[attr-defined]
        plain = self._plain  # type: ignore[attr-defined]
        return plain.lines(0, len(plain)), self._vt.lines()

    def take_clipboard(self) -> list[ClipboardSet]:
        """The clipboard sets (OSC 52) the program made since the last call, oldest first."""
        sets = list(self._modes.clipboard)
        self._modes.clipboard.clear()
        return sets
