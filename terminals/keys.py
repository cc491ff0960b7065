"""Key names -> the bytes a terminal sends for them (xterm conventions).

The names themselves (and their aliases) live in `protocol.keys`; this module only maps each
name to bytes. Cursor keys honour the child's application-cursor mode (DECCKM): `ESC O A`
instead of `ESC [ A`.
"""

from __future__ import annotations

import string

from ..protocol.keys import KEY_NAMES, UnknownKey, canonical_key

__all__ = ["KEY_NAMES", "UnknownKey", "canonical_key", "key_bytes"]

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


def key_bytes(name: str, *, app_cursor: bool = False) -> bytes:
    """The bytes for key `name` (case-insensitive). Raises UnknownKey."""
    key = canonical_key(name)
    if key in _CURSOR:
        return (b"\x1bO" if app_cursor else b"\x1b[") + _CURSOR[key]
    data = _PLAIN.get(key) or _CTRL.get(key)
    if data is None:  # a name protocol.keys knows and this table does not: a bug, said plainly
        raise UnknownKey(f"{name} (named, but no bytes for it)")
    return data
