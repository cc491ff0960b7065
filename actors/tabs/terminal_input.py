"""Input into a tab in the forms its program asked for: keys a UI forwards (the cursor keys
in the child's DECCKM mode, the keypad in its DECKPAM mode), pastes (bracketed when the child
enabled it), mouse events (in the child's mouse encoding, `terminals.mouse`) and named keys. A
mixin of `TerminalActor`: everything ends in its `write`, under its lock for the screen's modes."""

from __future__ import annotations

from typing import Any, Callable

from ...terminals import keys as keymap
from ...terminals.mouse import from_wire
from ...terminals.mouse import input_for as mouse_input
from .writes import WriteTicket

PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


class TerminalInput:
    _lock: Any
    _screen: Any
    _running: bool
    _failed: str | None

    write: Callable[..., WriteTicket]  # TerminalActor's own
    _require_running: Callable[[], None]

    def typed(self, data: bytes) -> WriteTicket:
        """Keys a UI forwards as its terminal sent them: the cursor keys and the keypad in the
        child's modes (`keys.typed_keys`). (Pastes come through `paste`: never translated.)"""
        with self._lock:
            app_cursor, app_keypad = self._screen.app_cursor_keys, self._screen.app_keypad
        return self.write(keymap.typed_keys(data, app_cursor, app_keypad))

    def paste(self, text: str, opening: bool = True, closing: bool = True) -> WriteTicket:
        """Type text; wrapped in bracketed-paste markers when the child asked for them. A paste
        that comes in pieces (a UI's messages have a size limit) is one paste to the program:
        the start marker goes with its first piece (`opening`), the end with its last (`closing`)."""
        self._require_running()
        data = text.replace("\r\n", "\r").replace("\n", "\r").encode("utf-8")
        with self._lock:
            bracketed = self._screen.bracketed_paste
        if bracketed:
            start = PASTE_START if opening else b""
            data = start + data.replace(PASTE_END, b"") + (PASTE_END if closing else b"")
            return self.write(data, len(start), PASTE_END)  # (cut short, it is closed all the same)
        return self.write(data)

    def mouse(self, action: str, x: int, y: int, button: int = 0, mods: tuple[str, ...] = ()) -> int:
        """A mouse event from a UI, in the encoding the program asked for (`terminals.mouse`);
        returns the bytes written (0: the program did not ask, or it is not running)."""
        with self._lock:
            modes = self._screen.modes
        data = mouse_input(modes, from_wire(action, x, y, button, mods))
        if data and self._running and self._failed is None:
            self.write(data)
        return len(data)

    def key(self, name: str) -> WriteTicket:
        with self._lock:
            app_cursor = self._screen.app_cursor_keys
        data = keymap.key_bytes(name, app_cursor=app_cursor)  # UnknownKey names the valid keys
        return self.write(data)
