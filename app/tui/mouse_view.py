"""The terminal view's mouse (mixed into `TerminalView`): what a click, a drag and the wheel do.

When the program in the tab asked for the mouse (the frame's `mouse` mode), every press,
release, drag and wheel step goes up the session in the tab's cells, and the host encodes it
as the program asked (`terminals.mouse`). Otherwise a drag selects text (drawn reversed) and,
on release, copies it (`app.copy_selection`: OSC 52 to the outer terminal, and the buffer that
prefix+`]` pastes) and stays highlighted until the user types into the tab or output changes
the rows under it (a click alone selects nothing); the wheel scrolls back through history, except on the alternate screen,
where the host turns it into arrow keys (as tmux does: less, man). Shift+drag always selects,
as in xterm and tmux.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual import events
from textual.strip import Strip

from ...terminals.selection import Point, Row, Selection, row_from_text

_BUTTONS = {1: 0, 2: 1, 3: 2}  # Textual's button numbers -> the wire's (0 left, 1 middle, 2 right)
SELECTED = Style(reverse=True)


def _mods(event: events.MouseEvent) -> tuple[str, ...]:
    return tuple(name for name, on in (("shift", event.shift), ("alt", event.meta), ("ctrl", event.ctrl)) if on)


class MouseMixin:
    mouse_mode: int = 0
    alt_screen: bool = False
    selection: Selection | None = None
    _pressed: int | None = None
    client: Any
    tab_id: int | None
    scroll_offset_rows: int

    # -- where --------------------------------------------------------------------------------

    def shown_line(self, y: int) -> tuple[Any, int, bool]:
        """(the row drawn at view row `y`, the tab column at the view's left edge, whether the
        row goes on in the next: a long line wrapped, copied without a newline there)."""
        offset = self.scroll_offset_rows
        if offset:
            if y < len(self.history_rows):  # type: ignore[attr-defined]
                return self.history_rows[y], 0, y in self.history_wrapped  # type: ignore[attr-defined]
            top, left = 0, 0
            y -= offset
        else:
            top, left = self.pan()  # type: ignore[attr-defined]
        y += top
        rows = self.rows  # type: ignore[attr-defined]
        return (rows[y] if 0 <= y < len(rows) else ()), left, y in self.wrapped  # type: ignore[attr-defined]

    def _shown_row(self, y: int) -> Row:
        line, left, wrapped = self.shown_line(y)
        width = self.size.width  # type: ignore[attr-defined]
        cells = row_from_text("".join(text for text, _ in line), left + width).cells[left:]
        return Row(tuple(cells), wrapped)

    def _forwarding_mouse(self, event: events.MouseEvent) -> bool:
        copy = getattr(self, "copy", None)
        return (bool(self.mouse_mode) and not self.scroll_offset_rows and not event.shift and self.tab_id is not None
                and not (copy is not None and copy.active))

    def _send_mouse(self, action: str, event: events.MouseEvent, button: int = 0) -> None:
        top, left = self.pan()  # type: ignore[attr-defined]
        self.client.mouse(self.tab_id, action, event.x + left, event.y + top, button, _mods(event))

    # -- events -------------------------------------------------------------------------------

    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()
        self.focus()  # type: ignore[attr-defined]
        if self._forwarding_mouse(event):
            self._pressed = _BUTTONS.get(event.button, 0)
            self.capture_mouse()  # type: ignore[attr-defined]
            self._send_mouse("press", event, self._pressed)
            return
        if event.button == 1:
            height = self.size.height  # type: ignore[attr-defined]
            self.selection = Selection(self._shown_row, lambda: height)
            self.selection.start(Point(event.y, event.x))
            self.capture_mouse()  # type: ignore[attr-defined]
            self.refresh()  # type: ignore[attr-defined]

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._pressed is not None and self.mouse_mode:
            event.stop()
            if self.mouse_mode in (1002, 1003):
                self._send_mouse("drag", event, self._pressed)
        elif self.mouse_mode == 1003 and self._forwarding_mouse(event):
            event.stop()
            self._send_mouse("move", event)
        elif self.selection is not None and self.selection.active and event.button == 1:
            event.stop()
            self.selection.extend(Point(event.y, event.x))
            self.refresh()  # type: ignore[attr-defined]

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self.capture_mouse(False)  # type: ignore[attr-defined]
        if self._pressed is not None:
            event.stop()
            button, self._pressed = self._pressed, None
            if self.mouse_mode:
                self._send_mouse("release", event, button)
            return
        selection = self.selection
        if selection is not None and selection.active:
            event.stop()
            selection.extend(Point(event.y, event.x))
            anchor, head = selection.anchor, selection.head
            text = selection.text()
            if (anchor != head or selection.mode != "char") and text:
                self.app.copy_selection(text)  # type: ignore[attr-defined]
            else:
                self.selection = None  # a click: nothing selected, nothing drawn over the tab
            self.refresh()  # type: ignore[attr-defined]

    def drop_selection(self) -> None:
        """The user typed on: a copied selection's highlight has done its job."""
        if self.selection is not None and not self.selecting:
            self.selection = None
            self.refresh()  # type: ignore[attr-defined]

    def output_under_selection(self, full: bool, lines: dict[str, Any]) -> None:
        """A frame changed rows of the live screen: a highlight over them would now mark text
        that was never selected (xterm drops it then too)."""
        selection = self.selection
        if selection is None or self.selecting or self.scroll_offset_rows:
            return
        first, last = selection.bounds()
        top = self.pan()[0]  # type: ignore[attr-defined]
        if full or any(first.row <= int(row) - top <= last.row for row in lines):
            self.drop_selection()

    @property
    def selecting(self) -> bool:
        """The left button is down, drawing a selection."""
        return self.selection is not None and self.app.mouse_captured is self  # type: ignore[attr-defined]

    def on_click(self, event: events.Click) -> None:
        """A double click selects a word, a triple click the line (and copies it)."""
        selection = self.selection
        if event.chain < 2 or selection is None or self._forwarding_mouse(event):
            return
        event.stop()
        selection.start(Point(event.y, event.x), "word" if event.chain == 2 else "line")
        text = selection.text()
        if text:
            self.app.copy_selection(text)  # type: ignore[attr-defined]
        self.refresh()  # type: ignore[attr-defined]

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._wheel("wheel_up", event, 3)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._wheel("wheel_down", event, -3)

    def _wheel(self, action: str, event: events.MouseEvent, rows: int) -> None:
        copy = getattr(self, "copy", None)
        if copy is not None and copy.active:  # scrollback mode: the wheel moves its cursor
            for _ in range(abs(rows)):
                copy.key("up" if rows > 0 else "down", None)
            return
        if self.tab_id is not None and not self.scroll_offset_rows and (self.mouse_mode or self.alt_screen):
            self._send_mouse(action, event)  # the program's, or arrow keys on the alternate screen
        else:
            self._scroll(rows)  # type: ignore[attr-defined]

    # -- drawing ------------------------------------------------------------------------------

    def paint_selection(self, strip: Strip, y: int, width: int) -> Strip:
        selection = self.selection
        if selection is None or not selection.active:
            return strip
        first, last = selection.bounds()
        if not first.row <= y <= last.row:
            return strip
        start = first.col if y == first.row else 0
        end = last.col + 1 if y == last.row else width
        if end <= start:
            return strip
        before, chosen, after = strip.divide([start, end, width])
        chosen = Strip([type(s)(s.text, (s.style or Style()) + SELECTED) for s in chosen])
        return Strip.join([before, chosen, after])
