"""The terminal view: the active tab's screen, drawn with Textual's Line API.

Rows arrive as `ScreenUpdate`s built by the terminal actor (never parsed here); only rows
that changed are refreshed. Keys go to the child as bytes, except the app's reserved
bindings. Shift+PageUp/PageDown and the mouse wheel scroll back through history; any key
returns to the live screen.
"""

from __future__ import annotations

import time
from typing import Any

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from ...terminals.screen import CellStyle
from .keys import key_to_bytes
from .messages import HistoryReady, SnapshotReady
from ...protocol.limits import ASK

HISTORY_RECOUNT = 0.3  # a little over terminals.screen.HISTORY_REFRESH


def _rich_color(color: Any) -> RichColor | None:
    if color is None:
        return None
    if isinstance(color, tuple):
        return RichColor.from_rgb(*color)
    return RichColor.from_ansi(color)


_STYLES: dict[CellStyle, Style] = {}


def rich_style(style: CellStyle) -> Style:
    cached = _STYLES.get(style)
    if cached is None:
        cached = Style(color=_rich_color(style.fg), bgcolor=_rich_color(style.bg), bold=style.bold or None,
                       dim=style.faint or None, italic=style.italic or None, underline=style.underline or None,
                       strike=style.strike or None, blink=style.blink or None, reverse=style.inverse or None)
        _STYLES[style] = cached
    return cached


class TerminalView(Widget, can_focus=True):
    DEFAULT_CSS = "TerminalView { width: 1fr; height: 1fr; }"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tab_id: int | None = None
        self.terminal: Any = None
        self.rows: list[tuple] = []
        self.cursor = (0, 0, True)
        self.app_cursor = False
        self.history = 0
        self.scroll_offset_rows = 0  # 0 = live; N = N rows up into history
        self.history_rows: list[tuple] = []
        self._scroll_target = 0  # the offset the latest scroll asked for
        self._strips: dict[int, tuple[int, Strip]] = {}  # live row -> (width, strip), cursor excluded

    # -- which tab ---------------------------------------------------------------------------

    def show(self, tab_id: int, terminal: Any) -> None:
        """Switch to a tab: stop watching the old one, watch the new one (off the loop)."""
        old = self.terminal
        self.tab_id, self.terminal = tab_id, terminal
        self.rows, self.scroll_offset_rows, self._scroll_target = [], 0, 0
        self._strips.clear()
        self.refresh()

        def swap() -> None:
            if old is not None:
                try:
                    old.watch(False).get(timeout=ASK)
                except Exception:  # noqa: BLE001 - a closed tab has nothing to unwatch
                    pass
            if self.tab_id != tab_id:
                return  # already switched on: the newer switch watches its own tab
            try:
                update = terminal.watch(True).get(timeout=ASK)
            except Exception:  # noqa: BLE001
                return
            self.post_message(SnapshotReady(tab_id, update))
            self._send_size()

        self.run_worker(swap, thread=True, group="watch", exclusive=True)

    def apply(self, update: Any) -> None:
        """Apply a ScreenUpdate from the watched tab; refresh only the rows that changed."""
        if update is None:
            return
        if len(self.rows) != update.rows:
            self.rows = [()] * update.rows
            self._strips.clear()
        for row, line in update.lines.items():
            if row < len(self.rows):
                self.rows[row] = line
                self._strips.pop(row, None)
        old_cursor = self.cursor
        self.cursor, self.app_cursor, self.history = update.cursor, update.app_cursor_keys, update.history
        if self.scroll_offset_rows:
            return
        width = self.size.width
        if update.full:
            self.refresh()
            return
        dirty = set(update.lines) | {old_cursor[0], self.cursor[0]}
        self.refresh(*(Region(0, row, width, 1) for row in dirty))

    # -- drawing -----------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self.scroll_offset_rows:
            index = len(self.history_rows) - self.scroll_offset_rows + y
            if index < len(self.history_rows):
                line = self.history_rows[index] if index >= 0 else ()
                return self._strip(line, width, None)
            y = index - len(self.history_rows)
            cursor = None
        else:
            cursor = self.cursor
        line = self.rows[y] if y < len(self.rows) else ()
        cursor_col = cursor[1] if cursor and cursor[0] == y and cursor[2] and self.has_focus else None
        if cursor_col is not None:
            return self._strip(line, width, cursor_col)
        cached = self._strips.get(y)
        if cached is None or cached[0] != width:
            cached = self._strips[y] = (width, self._strip(line, width, None))
        return cached[1]

    def _strip(self, line: tuple, width: int, cursor_col: int | None) -> Strip:
        segments = [Segment(text, rich_style(style)) for text, style in line]
        strip = Strip(segments).crop_extend(0, width, None)
        if cursor_col is not None and cursor_col < width:
            before, at, after = strip.divide([cursor_col, cursor_col + 1, width])
            at = Strip([Segment(s.text or " ", (s.style or Style()) + Style(reverse=True)) for s in at] or
                       [Segment(" ", Style(reverse=True))])
            strip = Strip.join([before, at, after])
        return strip

    # -- input -------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        if self.terminal is not None:
            self.terminal.write(data)  # a tell in effect: the future is not awaited

    async def on_key(self, event: events.Key) -> None:
        if event.key in ("shift+pageup", "shift+pagedown"):
            event.stop()
            self._scroll(self.size.height // 2 * (1 if event.key == "shift+pageup" else -1))
            return
        data = key_to_bytes(event.key, event.character, app_cursor=self.app_cursor)
        if data is None:
            return
        event.stop()
        event.prevent_default()
        if self.scroll_offset_rows or self._scroll_target:
            self.scroll_offset_rows = self._scroll_target = 0
            self.refresh()
        self.write(data)

    async def on_paste(self, event: events.Paste) -> None:
        event.stop()
        if self.terminal is not None:
            self.terminal.paste(event.text)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._scroll(3)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._scroll(-3)

    def _scroll(self, rows: int) -> None:
        # The history length in our last update can be stale (the screen recounts it at most
        # 4 times a second, and a quiet tab sends no updates): clamp against a fresh count.
        # Key repeats arrive faster than fetches: step from the target asked for last, not from
        # the offset shown so far.
        target = max(0, self._scroll_target + rows)
        if target == self._scroll_target or self.terminal is None:
            return
        self._scroll_target = target
        terminal, tab_id, height = self.terminal, self.tab_id, self.size.height

        def fetch() -> None:
            try:
                total = terminal.snapshot().get(timeout=ASK).history
                if total < target:  # maybe a stale count: the screen recounts every 0.25 s
                    time.sleep(HISTORY_RECOUNT)
                    total = terminal.snapshot().get(timeout=ASK).history
                offset = min(target, total)
                start = max(0, total - offset - height)
                history = terminal.history(start, total).get(timeout=ASK)
            except Exception:  # noqa: BLE001 - the tab closed meanwhile: nothing to scroll
                return
            self.post_message(HistoryReady(tab_id, offset, history, total, target))

        self.run_worker(fetch, thread=True, group="history", exclusive=True)

    def on_history_ready(self, message: HistoryReady) -> None:
        if message.tab_id != self.tab_id:
            return
        if message.asked != self._scroll_target:
            return  # a newer scroll is on its way
        self.history_rows, self.history = message.rows, message.history
        self.scroll_offset_rows = self._scroll_target = min(message.offset, len(message.rows))
        self.refresh()

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        if message.tab_id == self.tab_id:
            self.apply(message.update)

    # -- size --------------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._send_size()

    def _send_size(self) -> None:
        size: Size = self.size
        if self.terminal is not None and size.width > 1 and size.height > 0:
            self.terminal.resize(size.width, size.height)

    def on_focus(self) -> None:
        self.refresh(Region(0, self.cursor[0], self.size.width, 1))

    def on_blur(self) -> None:
        self.refresh(Region(0, self.cursor[0], self.size.width, 1))


__all__ = ["TerminalView", "rich_style"]
