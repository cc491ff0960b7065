"""Textual key events -> the bytes an xterm would send to the child.

Textual names keys as `[modifiers+]base` (modifiers alphabetical under the kitty protocol,
e.g. `alt+ctrl+a`, or legacy spellings such as `ctrl+shift+up`). We rebuild xterm's legacy
encoding from the parts: modified cursor/edit/function keys as `CSI 1;m X` / `CSI n;m ~`
(m = 1 + shift + 2*alt + 4*ctrl), ctrl+letter as C0 controls, alt as an ESC prefix.
"""

from __future__ import annotations

_LETTER_FINAL = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_TILDE = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6,
          "f5": 15, "f6": 17, "f7": 18, "f8": 19, "f9": 20, "f10": 21, "f11": 23, "f12": 24}
_SS3_FKEYS = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
# Textual spells punctuation by Unicode name; these are the ones ctrl turns into C0 codes.
_CTRL_PUNCT = {"commercial_at": 0, "@": 0, "space": 0, "left_square_bracket": 27, "backslash": 28,
               "right_square_bracket": 29, "circumflex_accent": 30, "low_line": 31, "underscore": 31,
               "question_mark": 127}
_SIMPLE = {"enter": b"\r", "tab": b"\t", "escape": b"\x1b", "backspace": b"\x7f", "space": b" "}
_MODIFIERS = {"shift", "alt", "meta", "ctrl", "super", "hyper"}


def _split(key: str) -> tuple[set[str], str]:
    parts = key.split("+")
    mods = set()
    while len(parts) > 1 and parts[0] in _MODIFIERS:
        mods.add(parts.pop(0))
    return mods, "+".join(parts)


def key_to_bytes(key: str, character: str | None, *, app_cursor: bool = False) -> bytes | None:
    """Bytes for a Textual key event, or None when it has no terminal meaning."""
    mods, base = _split(key)
    if "super" in mods or "hyper" in mods:
        return None
    alt = "alt" in mods or "meta" in mods
    shift, ctrl = "shift" in mods, "ctrl" in mods
    if base.startswith("f") and base[1:].isdigit() and 13 <= int(base[1:]) <= 24:
        base, shift = f"f{int(base[1:]) - 12}", True  # xterm reports shift+F1 as F13
    param = 1 + shift + 2 * alt + 4 * ctrl
    if base in _LETTER_FINAL:
        final = _LETTER_FINAL[base]
        if param > 1:
            return f"\x1b[1;{param}{final}".encode()
        return (b"\x1bO" if app_cursor and base in ("up", "down", "right", "left") else b"\x1b[") + final.encode()
    if base in _SS3_FKEYS:
        final = _SS3_FKEYS[base]
        return f"\x1b[1;{param}{final}".encode() if param > 1 else f"\x1bO{final}".encode()
    if base in _TILDE:
        code = _TILDE[base]
        return f"\x1b[{code};{param}~".encode() if param > 1 else f"\x1b[{code}~".encode()
    prefix = b"\x1b" if alt else b""
    if base == "tab" and shift:
        return b"\x1b[Z"
    if base == "backspace" and ctrl:
        return prefix + b"\x08"
    if ctrl:
        if len(base) == 1 and base.isascii() and base.isalpha():
            return prefix + bytes([ord(base.lower()) - 96])
        if base in _CTRL_PUNCT:
            return prefix + bytes([_CTRL_PUNCT[base]])
    if base in _SIMPLE:
        return prefix + _SIMPLE[base]
    if character and (character.isprintable() or character in "\t\r\x1b"):
        return prefix + character.encode("utf-8")
    if character and len(character) == 1 and (ord(character) < 32 or ord(character) == 127):
        return prefix + character.encode()  # legacy ctrl+\ and friends arrive as the C0 code
    if len(base) == 1 and base.isprintable():  # kitty alt+x: no text, the base is the letter
        return prefix + (base.upper() if shift else base).encode("utf-8")
    return None
