"""Mouse events as the bytes a program in a tab asked for (xterm's mouse protocols).

A program turns reporting on with DECSET 9 (X10: presses only), 1000 (presses and releases,
the wheel), 1002 (and motion while a button is held) or 1003 (and any motion), and picks an
encoding with 1005 (UTF-8), 1006 (SGR) or 1015 (urxvt); without one, the legacy encoding
(`CSI M` and three bytes, so nothing past column or row 223 can be reported: such events are
not sent, as tmux does). `Screen.modes` tracks both; `encode` turns one event into bytes, or
b"" when the program did not ask for it. `focus` does the same for 1004 focus events, and
`wheel_fallback` is what the wheel sends to a full-screen program that did not ask for the
mouse (arrow keys, as tmux and xterm's alternate-scroll mode do).

Coordinates are cells relative to the tab, 0-based; the wire is 1-based.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .sequences import ScreenModes

LEFT, MIDDLE, RIGHT = 0, 1, 2
WHEEL_UP, WHEEL_DOWN, WHEEL_LEFT, WHEEL_RIGHT = 64, 65, 66, 67
BACK, FORWARD = 128, 129  # buttons 8 and 9
NO_BUTTON = 3  # motion with nothing held; also the legacy encodings' "released"
SHIFT, ALT, CTRL = 4, 8, 16
MOTION = 32
LEGACY_MAX = 223  # 255 - 32: the largest 1-based coordinate one byte can carry
UTF8_MAX = 2015  # 2047 - 32: the largest a two-byte UTF-8 character can carry


@dataclass(frozen=True)
class MouseEvent:
    kind: Literal["press", "release", "motion"]
    button: int  # LEFT, MIDDLE, RIGHT, WHEEL_*, BACK, FORWARD; NO_BUTTON for motion with none held
    x: int  # column in the tab, from 0
    y: int  # row in the tab, from 0
    shift: bool = False
    alt: bool = False
    ctrl: bool = False

    @property
    def is_wheel(self) -> bool:
        return 64 <= self.button < 128


def wanted(modes: ScreenModes, event: MouseEvent) -> bool:
    """Whether the program's tracking mode reports `event` at all."""
    tracking = modes.mouse
    if tracking == 0:
        return False
    if tracking == 9:  # X10: presses of the three buttons, nothing else
        return event.kind == "press" and event.button in (LEFT, MIDDLE, RIGHT)
    if event.kind == "motion":
        return tracking == 1003 or (tracking == 1002 and event.button != NO_BUTTON)
    return not (event.kind == "release" and event.is_wheel)  # the wheel has no release


def encode(modes: ScreenModes, event: MouseEvent) -> bytes:
    """The bytes that report `event` to a program with `modes`, or b"" when it did not ask."""
    if not wanted(modes, event) or event.x < 0 or event.y < 0:
        return b""
    code = event.button
    if modes.mouse != 9:  # X10 mode reports no modifiers
        code |= (SHIFT if event.shift else 0) | (ALT if event.alt else 0) | (CTRL if event.ctrl else 0)
    if event.kind == "motion":
        code |= MOTION
    x, y = event.x + 1, event.y + 1
    encoding = modes.mouse_encoding
    if encoding == "sgr":  # the release keeps its button and says so with "m"
        return f"\x1b[<{code};{x};{y}{'m' if event.kind == 'release' else 'M'}".encode()
    if event.kind == "release":
        code = (code & ~0b11 & ~64 & ~128) | NO_BUTTON  # "a button was released": which one is not said
    if encoding == "urxvt":
        return f"\x1b[{32 + code};{x};{y}M".encode()
    if encoding == "utf8":
        if x > UTF8_MAX or y > UTF8_MAX:
            return b""
        return ("\x1b[M" + chr(32 + code) + chr(32 + x) + chr(32 + y)).encode("utf-8")
    if x > LEGACY_MAX or y > LEGACY_MAX or 32 + code > 255:
        return b""
    return b"\x1b[M" + bytes((32 + code, 32 + x, 32 + y))


def focus(modes: ScreenModes, gained: bool) -> bytes:
    """What to send when the tab gains or loses focus (only if the program asked: 1004)."""
    if not modes.focus_events:
        return b""
    return b"\x1b[I" if gained else b"\x1b[O"


def wheel_fallback(modes: ScreenModes, event: MouseEvent, lines: int = 3) -> bytes:
    """For a wheel event the program did not ask for: arrow keys on the alternate screen (what
    tmux does, so less and man scroll), else b"" (the caller scrolls its own history)."""
    if modes.mouse or not modes.alt_screen or event.button not in (WHEEL_UP, WHEEL_DOWN):
        return b""
    arrow = b"A" if event.button == WHEEL_UP else b"B"
    return ((b"\x1bO" if modes.app_cursor_keys else b"\x1b[") + arrow) * lines


_WHEELS = {"wheel_up": WHEEL_UP, "wheel_down": WHEEL_DOWN}


def from_wire(action: str, x: int, y: int, button: int = LEFT, mods: tuple[str, ...] = ()) -> MouseEvent:
    """The event a UI sent (protocol/ui.py `mouse`: press, release, drag, move, wheel_up/down)."""
    kind = "motion" if action in ("drag", "move") else "release" if action == "release" else "press"
    code = _WHEELS.get(action, NO_BUTTON if action == "move" else button)
    return MouseEvent(kind, code, x, y, "shift" in mods, "alt" in mods, "ctrl" in mods)  # type: ignore[arg-type]


def input_for(modes: ScreenModes, event: MouseEvent) -> bytes:
    """What the tab gets for `event`: its report if the program asked for the mouse, arrow keys
    for the wheel on the alternate screen if it did not, else b"" (the UI selects or scrolls)."""
    return encode(modes, event) if modes.mouse else wheel_fallback(modes, event)
