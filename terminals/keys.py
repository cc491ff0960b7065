"""Key names -> the bytes a terminal sends for them (xterm conventions).

The names themselves (and their aliases) live in `protocol.keys`; this module only maps each
to bytes:

- cursor keys, home and end: `CSI A` (or `SS3 A` in the child's application-cursor mode,
  DECCKM), with modifiers `CSI 1;m A`;
- f1..f4: `SS3 P`..`SS3 S`, with modifiers `CSI 1;m P`;
- insert delete pageup pagedown f5..f12: `CSI n ~`, with modifiers `CSI n;m ~`;
  where m = 1 + shift + 2*alt + 4*ctrl, as xterm sends them;
- anything else with alt: ESC, then the key (`alt+x` is ESC x);
- ctrl+letter and ctrl+punctuation: the control code.

Keys a UI forwards as its terminal sent them are put in the form the tab's program asked for
(`typed_keys`): the cursor keys per DECCKM, the keypad per DECKPAM/DECKPNM.
"""

from __future__ import annotations

import re
import string

from ..protocol.keys import KEY_NAMES, MODIFIABLE, UnknownKey, canonical_key, key_parts

__all__ = ["KEY_NAMES", "UnknownKey", "canonical_key", "cursor_keys", "key_bytes", "keypad_keys", "text_keystrokes",
           "typed_keys"]

_PLAIN: dict[str, bytes] = {
    "enter": b"\r", "tab": b"\t", "esc": b"\x1b", "backspace": b"\x7f", "space": b" ",
}
# Keys whose CSI form becomes SS3 (ESC O x) in application cursor mode.
_CURSOR: dict[str, bytes] = {"up": b"A", "down": b"B", "right": b"C", "left": b"D", "home": b"H", "end": b"F"}
_SS3: dict[str, bytes] = {"f1": b"P", "f2": b"Q", "f3": b"R", "f4": b"S"}
_TILDE: dict[str, int] = {
    "insert": 2, "delete": 3, "pageup": 5, "pagedown": 6,
    "f5": 15, "f6": 17, "f7": 18, "f8": 19, "f9": 20, "f10": 21, "f11": 23, "f12": 24,
}
_CTRL: dict[str, bytes] = {c: bytes([i + 1]) for i, c in enumerate(string.ascii_lowercase)}
_CTRL.update({"space": b"\x00", "@": b"\x00", "[": b"\x1b", "\\": b"\x1c", "]": b"\x1d", "^": b"\x1e",
              "_": b"\x1f", "/": b"\x1f"})


def _modified(base: str, mods: tuple[str, ...], app_cursor: bool) -> bytes:
    """A key xterm encodes with a modifier parameter."""
    m = 1 + ("shift" in mods) + 2 * ("alt" in mods) + 4 * ("ctrl" in mods)
    if base in _TILDE:
        return f"\x1b[{_TILDE[base]}{';%d' % m if m > 1 else ''}~".encode()
    final = _CURSOR.get(base) or _SS3[base]
    if m > 1:
        return b"\x1b[1;%d" % m + final
    if base in _SS3 or app_cursor:
        return b"\x1bO" + final
    return b"\x1b[" + final


def key_bytes(name: str, *, app_cursor: bool = False) -> bytes:
    """The bytes for key `name` (see `protocol.keys` for the spellings). Raises UnknownKey."""
    mods, base = key_parts(name)
    if base in MODIFIABLE:
        return _modified(base, mods, app_cursor)
    if "shift" in mods:  # only shift+tab (and alt+shift+tab) are left here
        data = b"\x1b[Z"
    elif "ctrl" in mods:
        data = _CTRL[base]
    else:
        data = _PLAIN.get(base) or base.encode("utf-8")
    return b"\x1b" + data if "alt" in mods else data


def text_keystrokes(text: str) -> bytes:
    """`text` as typed key by key: its characters as UTF-8, a line break as Enter (CR), never
    wrapped in bracketed-paste markers (what `tmux send-keys -l` does)."""
    return text.replace("\r\n", "\r").replace("\n", "\r").encode("utf-8")


_AS_CSI = re.compile(rb"\x1bO([ABCDHF])")
_AS_SS3 = re.compile(rb"\x1b\[([ABCDHF])")


def cursor_keys(data: bytes, app_cursor: bool) -> bytes:
    """Keys typed in a UI, with the unmodified cursor keys, home and end in the form the child
    asked for (DECCKM): the outer terminal sends them in its own mode, not the tab's, and a
    program in application mode (mc, less, vim's insert mode in some builds) takes only
    `SS3 A`. tmux re-encodes them the same way. Reads arrive whole (raw_input holds a cut-off
    sequence), so a sequence is never split here."""
    if b"\x1b" not in data:
        return data
    return (_AS_SS3 if app_cursor else _AS_CSI).sub(b"\x1bO\\1" if app_cursor else b"\x1b[\\1", data)


# The keypad in application mode (DECKPAM), as xterm sends it (ctlseqs, "VT100-style keypad"):
# SS3 and a letter per key; in numeric mode (DECKPNM) the key's own character. (PF1-PF4,
# SS3 P-S, are F1-F4 in both modes: left alone.)
_KEYPAD = {ord(final): plain for final, plain in {
    "p": b"0", "q": b"1", "r": b"2", "s": b"3", "t": b"4", "u": b"5", "v": b"6", "w": b"7", "x": b"8", "y": b"9",
    "j": b"*", "k": b"+", "l": b",", "m": b"-", "n": b".", "o": b"/", "X": b"=", "M": b"\r", "I": b"\t", " ": b" ",
}.items()}
# (xterm puts a modifier between: Ctrl+KP* is SS3 5 j)
_KEYPAD_SS3 = re.compile(rb"\x1bO([2-8]?)([pqrstuvwxyjklmnoXMI ])")


def _numeric(match: re.Match[bytes]) -> bytes:
    """A keypad key as a terminal in numeric mode sends it: its character, after ESC with Alt
    (as any key); Ctrl and Shift change no character there."""
    mods = int(match[1]) - 1 if match[1] else 0  # xterm's: 1 shift, 2 alt, 4 ctrl
    return (b"\x1b" if mods & 2 else b"") + _KEYPAD[match[2][0]]


def keypad_keys(data: bytes, app_keypad: bool) -> bytes:
    """Keys typed in a UI, with the keypad in the form the child asked for. The UI keeps its
    terminal in application keypad mode (so the keypad is told apart, as tmux does), and a
    child in numeric mode -- the default: shells, most programs -- gets the characters a
    terminal in that mode sends: KP1 is `1`, KP Enter CR (xterm's; tmux sends LF). A child in
    application mode (vim, mc) gets SS3 as it came. Nothing is made the other way round: a
    terminal that sends `1` does not say whether it was the keypad."""
    if app_keypad or b"\x1bO" not in data:
        return data
    return _KEYPAD_SS3.sub(_numeric, data)


def typed_keys(data: bytes, app_cursor: bool, app_keypad: bool) -> bytes:
    """Keys typed in a UI as the tab's modes want them: the one place for it (cursor keys per
    DECCKM, the keypad per DECKPAM). Their patterns never overlap (A-H vs the keypad's letters)."""
    return keypad_keys(cursor_keys(data, app_cursor), app_keypad)
