"""The terminal view: the tab this UI shows, drawn with Textual's Line API from the host's
screen frames (protocol/README.md): a full frame when the view starts watching a tab, then
only the rows that changed, which are the only rows repainted (live_paint.py).

The tab keeps the size of the most recently active UI: a view larger than the tab draws it
padded, a smaller one clipped, never reflowed -- panned, as tmux does, so that the cursor
stays in sight. Input reaches the tab as bytes: raw, straight
from the driver (driver.py) when the real terminal is read, or from key events here (Pilot,
and terminals the raw driver does not run on). The mouse wheel (and, for key events,
Shift+PageUp/PageDown) scrolls back through history, fetched a page at a time; typing returns
to the live screen (history_scroll.py).
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual import events
from textual.filter import ANSIToTruecolor, LineFilter
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from .exit_banner import banner, banner_row, has_text
from .history_scroll import HistoryScrollMixin
from .keys import key_to_bytes
from .live_paint import LivePaintMixin
from .mouse_view import MouseMixin
from .row_segments import row_segments
from .scrollback_mode import ScrollbackMode

# How long a tab switch may show the last tab's screen while the new one's is on its way.
SWITCH_WAIT = 0.25
# A size is told once the screen has the window's size (Textual resizes it ~8 ms after the
# window changed): looked at again every SETTLE_STEP s, told as it is after SETTLE_TRIES looks.
SETTLE_STEP, SETTLE_TRIES = 0.01, 50


class TerminalView(LivePaintMixin, HistoryScrollMixin, MouseMixin, Widget, can_focus=True):
    DEFAULT_CSS = "TerminalView { width: 1fr; height: 1fr; }"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client: Any = None  # set by the app: the session with the host
        self.tab_id: int | None = None
        self.rows: list[list] = []  # [[text, sgr], ...] per row of the tab's screen
        self.wrapped: set[int] = set()  # rows of the tab's screen that go on in the next (a long line)
        self.serial = 0
        self.cursor = (0, 0, True)
        self.cursor_style = 0  # DECSCUSR's: the terminal's cursor shows in it (terminal_cursor.py)
        self.app_cursor = False
        self._told_size: tuple[int, int] | None = None  # the size last sent to the host (`tell_size`)
        self.tab_size = (0, 0)
        self.history = 0
        self._lines_seen = 0  # history + dropped of the last frame: how far the screen scrolled since
        self._init_scroll()  # scrolled back with the wheel (history_scroll.py)
        self._strips: dict[int, tuple[int, int, Strip]] = {}  # live row -> (width, left, strip), no cursor
        self._pan_shown: tuple[int, int] | None = None  # the pan the view shows at (`pan`), last drawn or painted
        self.copy = ScrollbackMode(self)  # prefix+[ (scrollback_mode.py)
        self.exited: str | None = None  # the banner below the last screen of a tab whose program ended (exit_banner.py)

    def get_line_filters(self) -> list[LineFilter]:
        """The app's filters but the one turning the 16 ANSI colours into the UI theme's
        truecolour: a program's `\\e[31m` goes to the terminal as it was written and shows in
        the user's own palette, as in a tmux pane (direct_paint applies these too)."""
        return [line_filter for line_filter in super().get_line_filters()
                if not isinstance(line_filter, ANSIToTruecolor)]

    # -- which tab ---------------------------------------------------------------------------

    def show(self, tab_id: int) -> None:
        """Watch another tab: the host answers with a full frame of it, which paints the whole
        view. Until then the view shows what it showed, so the switch is one change from one
        screen to the other, as in tmux (painting it blank first flashed on every switch);
        only if the frame is slow to come (SWITCH_WAIT) does the view go blank meanwhile."""
        self.tab_id, self.selection = tab_id, None
        self.copy.active = False
        self.serial = 0  # (serials start at 1: 0 means no frame of this tab yet)
        self._init_scroll()
        if self.client is not None:
            self.client.watch(tab_id)
        self.set_timer(SWITCH_WAIT, lambda: self._blank_until_shown(tab_id))

    def _blank_until_shown(self, tab_id: int) -> None:
        if self.tab_id == tab_id and not self.serial:
            self.rows = []
            self._strips.clear()
            self.refresh()

    def apply_frame(self, frame: dict[str, Any]) -> None:
        """A `screen` frame for the tab shown: take its rows, repaint only those."""
        if frame["tab"] != self.tab_id or (frame["serial"] <= self.serial and not frame["full"]):
            return
        rows = frame["rows"]
        # (To tell a scroll, `_scrolled`: the rows painted before, of this tab at this size.)
        before = list(self.rows) if self.serial and len(self.rows) == rows else None
        grown = frame["history"] + frame["dropped"] - self._lines_seen
        self._lines_seen = frame["history"] + frame["dropped"]
        self.serial = frame["serial"]
        if len(self.rows) != rows:
            self.rows = [[] for _ in range(rows)]
            self._strips.clear()
        wrapped = frame.get("wrapped", ())  # (of this frame's rows; the others keep theirs)
        for row, line in frame["lines"].items():
            row = int(row)
            if row < rows:
                self.rows[row] = line
                self._strips.pop(row, None)
                (self.wrapped.add if row in wrapped else self.wrapped.discard)(row)
        self.cursor, self.app_cursor = tuple(frame["cursor"]), frame["app_cursor"]
        self.cursor_style = frame.get("cursor_style", 0)
        self.mouse_mode, self.alt_screen = frame.get("mouse", 0), frame["alt_screen"]
        self.tab_size, self.history = (frame["cols"], rows), frame["history"]
        if self.scroll_offset_rows or self.copy.active:
            if self.scroll_offset_rows and not self.alt_screen:
                self._keep_anchored(frame["history"], frame["dropped"])
            return  # (scrollback mode shows the screen as it was: nothing here changes it)
        self.output_under_selection(frame["full"], frame["lines"])
        self.paint_frame(frame, before, grown)

    # -- drawing -----------------------------------------------------------------------------

    def pan(self) -> tuple[int, int]:
        """(top row, left column) of the tab shown at the view's corner: 0, 0 unless the tab
        is larger than the view and the cursor would be out of sight -- or the tab exited and
        its text reaches the view's bottom row: one row lower, to make room for the banner
        below it, as tmux's dead pane scrolls its last screen up a line for its message."""
        width, height = self.size
        cols, rows = self.tab_size
        row, col = self.cursor[0], self.cursor[1]
        top = min(max(0, row + 1 - height), max(0, rows - height))
        if self.shown_exit and 0 <= top + height - 1 < len(self.rows) and has_text(self.rows[top + height - 1]):
            top += 1
        left = min(max(0, col + 1 - width), max(0, cols - width))
        return top, left

    def render_line(self, y: int) -> Strip:
        if self.copy.active:
            return self.copy.render(y, self.size.width, lambda line, width: self._strip(line, width, 0))
        strip = self._render_line(y)
        if self.shown_exit and y == banner_row(self.size.height, lambda row: self.shown_line(row)[0]):
            return banner(strip, self.shown_exit, self.size.width)
        return self.paint_selection(strip, y, self.size.width) if self.selection is not None else strip

    @property
    def shown_exit(self) -> str | None:
        """The banner to draw: over the exited tab's own screen only, once its first frame is
        here -- not over the screen the view still shows until then (the tab before's)."""
        return self.exited if self.serial else None

    def set_exited(self, note: str | None) -> None:
        if note != self.exited:
            self.exited = note
            self.refresh()

    def _render_line(self, y: int) -> Strip:
        # (The tab's cursor is the terminal's own, placed after each paint: terminal_cursor.py.)
        width = self.size.width
        offset = self.scroll_offset_rows
        top, left = (0, 0) if offset else self.pan()
        self._pan_shown = (top, left) if not offset else None  # (what `apply_frame` paints over)
        if offset:
            if y < len(self.history_rows):
                return self._strip(self.history_rows[y], width, 0)
            y -= offset
        y += top
        line = self.rows[y] if 0 <= y < len(self.rows) else ()
        cached = self._strips.get(y)
        if cached is None or cached[0] != width or cached[1] != left:
            cached = self._strips[y] = (width, left, self._strip(line, width, left))
        return cached[2]

    def _strip(self, line: Any, width: int, left: int) -> Strip:
        segments, length = row_segments(line)
        if left or length > width:
            return Strip(segments, length).crop_extend(left, left + width, None)
        # the usual row: padded in place, one Strip (each costs seven caches) not two
        if length < width:
            segments.append(Segment(" " * (width - length)))
        return Strip(segments, width)

    # -- input (key events: Pilot, or no raw driver) -----------------------------------------

    def write(self, data: bytes) -> None:
        if self.client is not None and self.tab_id is not None:
            self.client.input(self.tab_id, data)

    async def on_key(self, event: events.Key) -> None:
        if self.copy.active and self.copy.key(event.key, event.character):
            event.stop()
            event.prevent_default()
            return
        if event.key in ("shift+pageup", "shift+pagedown"):
            event.stop()
            self._scroll(self.size.height // 2 * (1 if event.key == "shift+pageup" else -1))
            return
        data = key_to_bytes(event.key, event.character, app_cursor=self.app_cursor)
        if data is None:
            return
        event.stop()
        event.prevent_default()
        self.to_live()
        self.drop_selection()
        self.write(data)

    async def on_paste(self, event: events.Paste) -> None:
        event.stop()
        if self.client is not None and self.tab_id is not None:
            self.client.paste(self.tab_id, event.text)

    # -- size and focus ----------------------------------------------------------------------

    def on_mount(self) -> None:
        # Every layout of the screen, not only a Resize the view is sent: leaving a zoom changed
        # the view's size without one now and then, and the tab kept the whole window's size.
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self.call_after_refresh(self.tell_size))

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()
        # The tab is told the size the layout settles on, once the screen has been refreshed:
        # when the window changes, the panel re-docks for the new width (`apply_panel`) and that
        # is laid out at the old width first -- told at once, the program got 140x32 in a
        # 100-column window, then 100x19. (Told once per size: `tell_size`.)
        self.call_after_refresh(self.tell_size)

    def tell_size(self, tries: int = 0) -> None:
        """Tell the host the view's size, if it is not the size told last."""
        width, height = self.size
        screen = self.screen.size
        if (screen != self.app.size or width > screen.width or height > screen.height) and tries < SETTLE_TRIES:
            # A layout made before the screen took the window's new size (the refresh can come
            # between the two): not the tab's size. Asked again once the screen has it.
            self.set_timer(SETTLE_STEP, lambda: self.tell_size(tries + 1))
            return
        if self.client is not None and width > 0 and height > 0 and (width, height) != self._told_size:
            self._told_size = (width, height)
            self.client.resize(width, height)

    # Textual's own focus handlers (Widget's, run after a subclass's unless it prevents them)
    # draw a widget whole, for focus styles its render would show; the view looks the same
    # with the keyboard or without, but for the cursor's row (a paint shows or hides the
    # terminal's cursor: terminal_cursor.py). Drawn whole, the keyboard going to the agent
    # panel and back cost the view's every row (4-5 KB at 140x45) each way.
    def _on_focus(self, event: events.Focus) -> None:
        self._focus_moved(event, True)

    def _on_blur(self, event: events.Blur) -> None:
        self._focus_moved(event, False)
        self.call_after_refresh(self._keep_focus)

    def _focus_moved(self, event: events.Focus | events.Blur, has_focus: bool) -> None:
        event.prevent_default()
        self.has_focus = has_focus
        self.refresh(Region(0, self.cursor[0] - self.pan()[0], self.size.width, 1))  # (the cursor's row in the view)
        if self.parent is not None:
            self.parent.post_message(events.DescendantFocus(self) if has_focus else events.DescendantBlur(self))

    def _keep_focus(self) -> None:
        """A mouse report outside every widget (a drag past the window's edge, a resize racing
        a click) makes Textual focus nothing, and the keys would go nowhere: the tab takes them
        back. (A dialog or the agent panel taking the focus is not this: something has it.)"""
        if self.app.screen is self.screen and self.screen.focused is None:
            self.focus()


__all__ = ["TerminalView"]
