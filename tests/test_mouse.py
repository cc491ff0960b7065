"""The mouse encoder (issue 11): an event as the bytes a program asked for with its mouse
modes, checked against xterm's documented encodings; and the modes come from a real screen
fed what programs send."""

from __future__ import annotations

from tikitaka.terminals import mouse
from tikitaka.terminals.mouse import LEFT, NO_BUTTON, RIGHT, WHEEL_DOWN, WHEEL_UP, MouseEvent
from tikitaka.terminals.screen import Screen


def modes(*sequences: bytes):
    screen = Screen(300, 10)
    for sequence in sequences:
        screen.feed(sequence)
    return screen.modes


SGR = modes(b"\x1b[?1002h\x1b[?1006h")
press = MouseEvent("press", LEFT, 9, 4)


def test_nothing_is_sent_unless_the_program_asked():
    off = modes()
    assert mouse.encode(off, press) == b"" and mouse.focus(off, True) == b""


def test_sgr_reports_presses_releases_drags_and_the_wheel():
    assert mouse.encode(SGR, press) == b"\x1b[<0;10;5M"
    assert mouse.encode(SGR, MouseEvent("release", LEFT, 9, 4)) == b"\x1b[<0;10;5m"
    assert mouse.encode(SGR, MouseEvent("motion", LEFT, 10, 4)) == b"\x1b[<32;11;5M"
    assert mouse.encode(SGR, MouseEvent("press", WHEEL_UP, 0, 0)) == b"\x1b[<64;1;1M"
    assert mouse.encode(SGR, MouseEvent("press", WHEEL_DOWN, 0, 0, ctrl=True)) == b"\x1b[<81;1;1M"
    assert mouse.encode(SGR, MouseEvent("press", RIGHT, 250, 3, shift=True, alt=True)) == b"\x1b[<14;251;4M"
    assert mouse.encode(SGR, MouseEvent("motion", NO_BUTTON, 3, 3)) == b""  # 1002: motion only while held


def test_any_event_tracking_reports_motion_without_a_button():
    any_event = modes(b"\x1b[?1003h\x1b[?1006h")
    assert mouse.encode(any_event, MouseEvent("motion", NO_BUTTON, 3, 3)) == b"\x1b[<35;4;4M"


def test_legacy_encoding_and_its_223_limit():
    legacy = modes(b"\x1b[?1000h")
    assert mouse.encode(legacy, press) == b"\x1b[M" + bytes((32, 32 + 10, 32 + 5))
    assert mouse.encode(legacy, MouseEvent("release", RIGHT, 9, 4)) == b"\x1b[M" + bytes((35, 42, 37))
    assert mouse.encode(legacy, MouseEvent("press", WHEEL_UP, 0, 0)) == b"\x1b[M" + bytes((96, 33, 33))
    assert mouse.encode(legacy, MouseEvent("press", LEFT, 222, 0)) == b"\x1b[M" + bytes((32, 255, 33))
    assert mouse.encode(legacy, MouseEvent("press", LEFT, 223, 0)) == b""  # column 224 cannot be said
    assert mouse.encode(legacy, MouseEvent("motion", LEFT, 5, 5)) == b""  # 1000 reports no drags


def test_utf8_and_urxvt_encodings():
    utf8 = modes(b"\x1b[?1000h\x1b[?1005h")
    assert mouse.encode(utf8, MouseEvent("press", LEFT, 299, 0)) == ("\x1b[M " + chr(32 + 300) + "!").encode()
    urxvt = modes(b"\x1b[?1000h\x1b[?1015h")
    assert mouse.encode(urxvt, press) == b"\x1b[32;10;5M"
    assert mouse.encode(urxvt, MouseEvent("release", LEFT, 9, 4, ctrl=True)) == b"\x1b[51;10;5M"


def test_x10_mode_reports_presses_only_without_modifiers():
    x10 = modes(b"\x1b[?9h")
    assert mouse.encode(x10, MouseEvent("press", LEFT, 0, 0, ctrl=True)) == b"\x1b[M" + bytes((32, 33, 33))
    assert mouse.encode(x10, MouseEvent("release", LEFT, 0, 0)) == b""
    assert mouse.encode(x10, MouseEvent("press", WHEEL_UP, 0, 0)) == b""


def test_focus_events_and_the_wheel_on_the_alternate_screen():
    focus = modes(b"\x1b[?1004h")
    assert mouse.focus(focus, True) == b"\x1b[I" and mouse.focus(focus, False) == b"\x1b[O"
    wheel = MouseEvent("press", WHEEL_UP, 0, 0)
    assert mouse.wheel_fallback(modes(b"\x1b[?1049h"), wheel) == b"\x1b[A" * 3
    assert mouse.wheel_fallback(modes(b"\x1b[?1049h\x1b[?1h"), MouseEvent("press", WHEEL_DOWN, 0, 0), 2) \
        == b"\x1bOB" * 2
    assert mouse.wheel_fallback(modes(), wheel) == b""  # primary screen: the UI scrolls its history
    assert mouse.wheel_fallback(SGR, wheel) == b""  # the program takes the wheel itself
