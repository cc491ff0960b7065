"""Textual key events -> the bytes a terminal would send (xterm conventions)."""

from __future__ import annotations

from ...terminals.keys import UnknownKey, key_bytes

_FUNCTION = {
    "f1": b"\x1bOP", "f2": b"\x1bOQ", "f3": b"\x1bOR", "f4": b"\x1bOS", "f5": b"\x1b[15~",
    "f6": b"\x1b[17~", "f7": b"\x1b[18~", "f8": b"\x1b[19~", "f9": b"\x1b[20~", "f10": b"\x1b[21~",
    "f11": b"\x1b[23~", "f12": b"\x1b[24~", "insert": b"\x1b[2~",
}
_TEXTUAL_NAMES = {"escape": "esc", "ctrl+i": "tab", "ctrl+m": "enter", "ctrl+h": "backspace"}


def key_to_bytes(key: str, character: str | None, *, app_cursor: bool = False) -> bytes | None:
    """Bytes for a Textual key event, or None when it has no terminal meaning."""
    if key in _FUNCTION:
        return _FUNCTION[key]
    name = _TEXTUAL_NAMES.get(key, key)
    if name.startswith("alt+") or name.startswith("meta+"):
        rest = name.split("+", 1)[1]
        inner = key_to_bytes(rest, rest if len(rest) == 1 else None, app_cursor=app_cursor)
        return b"\x1b" + inner if inner else None
    try:
        return key_bytes(name, app_cursor=app_cursor)
    except UnknownKey:
        pass
    if name == "ctrl+space" or name == "ctrl+@":
        return b"\x00"
    if character and (character.isprintable() or character in "\t\r"):
        return character.encode("utf-8")
    if character and len(character) == 1 and ord(character) < 32:
        return character.encode()
    return None
