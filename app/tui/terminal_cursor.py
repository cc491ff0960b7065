"""The terminal's own cursor, shown where the program in the tab has its cursor and in the style
it asked for (DECSCUSR: a bar in vim's insert mode, an underline, blinking or steady), as a
tmux client shows it; with no style asked for, the user's own cursor.

Textual hides the terminal's cursor for good and draws its widgets' cursors itself. Every
paint -- Textual's and direct_paint's, both bracketed by `_begin_update` / `_end_update` --
therefore hides the cursor first and shows it again once the rows are drawn, at the tab's
cursor (so it never runs across the screen while a frame is written, as tmux does). It shows
only while the view has the keyboard and shows the live screen with the cursor on it: not
under a dialog, the palette or a toast, not while the agent panel has focus, not in scrollback
or copy mode, over a selection or the exit banner, and not where the program hid it (DECTCEM).
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Offset

from .direct_paint import free_widths

HIDE, SHOW = "\x1b[?25l", "\x1b[?25h"
DEFAULT_STYLE = "\x1b[0 q"  # the terminal's own cursor again


def cursor_place(view: Any) -> tuple[int, int, int] | None:
    """(x, y, style) on the screen for the terminal's cursor, or None when it is not to show."""
    if not view.has_focus or view.app.screen is not view.screen or view.tab_id is None or not view.rows:
        return None
    if view.copy.active or view.scroll_offset_rows or view.selecting or view.exited:
        return None
    row, col, visible = view.cursor
    if not visible:
        return None
    top, left = view.pan()
    x, y = col - left, row - top
    region = view.content_region
    if not (0 <= x < region.width and 0 <= y < region.height):
        return None
    free = free_widths(view, view.region)  # (a toast or a tooltip over that cell: no cursor over it)
    if free is not None and free.get(y, region.width) <= x:
        return None
    return region.x + x, region.y + y, view.cursor_style


class TerminalCursor:
    """Mixed into the app (before `App`): its paints show the tab's cursor (see the module)."""

    _cursor_shown = False
    _cursor_style: int | None = None  # the style last written to the terminal (None: none yet)

    def _begin_update(self) -> None:
        super()._begin_update()  # type: ignore[misc]
        driver = self._driver  # type: ignore[attr-defined]
        if self._cursor_shown and driver is not None:
            driver.write(HIDE)
            self._cursor_shown = False

    def _end_update(self) -> None:
        driver = self._driver  # type: ignore[attr-defined]
        view = getattr(self, "view", None)
        place = cursor_place(view) if driver is not None and view is not None and view.is_mounted else None
        if place is not None:
            x, y, style = place
            sequence = f"\x1b[{y + 1};{x + 1}H"
            if style != self._cursor_style:
                sequence += f"\x1b[{style} q"
                self._cursor_style = style
            driver.write(sequence + SHOW)
            self._cursor_shown = True
            self.cursor_position = Offset(x, y)  # (where Textual leaves the cursor: an IME's place)
        super()._end_update()  # type: ignore[misc]

    def cursor_style_reset(self) -> str:
        """What puts the terminal's own cursor back when the UI lets the terminal go: "" when
        no style was ever set. The next paint sets the style again (after a suspend)."""
        written, self._cursor_style, self._cursor_shown = self._cursor_style, None, False
        return DEFAULT_STYLE if written else ""
