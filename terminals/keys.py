"""Key names -> the bytes a terminal sends for them (xterm conventions).

The names are the ones the coordinator's `send_key` tool and `tiki terminal-key` accept. Cursor
keys honour the child's application-cursor mode (DECCKM): `ESC O A` instead of `ESC [ A`.
"""

from __future__ import annotations

import string

_PLAIN: dict[str, bytes] = {
    "enter": b"\r",
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "esc": b"\x1b",
    "backspace": b"\x7f",
    "delete": b"\x1b[3~",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "space": b" ",
}
# Keys whose CSI form becomes SS3 (ESC O x) in application cursor mode.
_CURSOR: dict[str, bytes] = {"up": b"A", "down": b"B", "right": b"C", "left": b"D", "home": b"H", "end": b"F"}
_CTRL: dict[str, bytes] = {f"ctrl+{c}": bytes([i + 1]) for i, c in enumerate(string.ascii_lowercase)}

KEY_NAMES: tuple[str, ...] = (
    "enter", "tab", "shift+tab", "esc", "backspace", "delete",
    "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "space",
    *_CTRL,
)

# Spellings people (and small models) use for the same keys.
_ALIASES: dict[str, str] = {
    "return": "enter", "ret": "enter", "cr": "enter",
    "escape": "esc",
    "bs": "backspace",
    "del": "delete",
    "pgup": "pageup", "page_up": "pageup", "page-up": "pageup", "prior": "pageup",
    "pgdn": "pagedown", "page_down": "pagedown", "page-down": "pagedown", "next": "pagedown",
    "backtab": "shift+tab", "s-tab": "shift+tab", "shift-tab": "shift+tab",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
}


class UnknownKey(ValueError):
    """A key name we do not know; the message lists the valid names."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(
            f"unknown key {name!r}; valid keys: " + " ".join(KEY_NAMES[:15]) + " ctrl+a .. ctrl+z"
        )


def canonical_key(name: str) -> str:
    """The KEY_NAMES spelling of `name` ("C-c", "Ctrl-C", "^C" -> "ctrl+c"); UnknownKey if none."""
    if not isinstance(name, str):
        raise UnknownKey(repr(name))
    key = name.strip().lower().replace(" ", "")
    key = _ALIASES.get(key, key)
    for prefix in ("ctrl+", "ctrl-", "control+", "control-", "c-", "^"):
        if key.startswith(prefix) and len(key) == len(prefix) + 1:
            key = "ctrl+" + key[-1]
            break
    if key in _PLAIN or key in _CURSOR or key in _CTRL:
        return key
    raise UnknownKey(name)


def key_bytes(name: str, *, app_cursor: bool = False) -> bytes:
    """The bytes for key `name` (case-insensitive). Raises UnknownKey."""
    key = canonical_key(name)
    if key in _CURSOR:
        return (b"\x1bO" if app_cursor else b"\x1b[") + _CURSOR[key]
    return _PLAIN.get(key) or _CTRL[key]
