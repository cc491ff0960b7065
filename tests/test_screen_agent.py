"""What agent-state detection reads from a screen (terminals/screen_agent): the cached rows are
always what the emulator shows, however the screen changed, and the program's notifications
are found in the stream, split across reads or not."""

from __future__ import annotations

import random

from tikitaka.terminals.screen import Screen

PIECES = ["hello", "\r\n", "\x1b[2J", "\x1b[H", "\x1b[5;3H", "wide 한글 ", "\x1b[K", "\x1b[1;31mred\x1b[0m",
          "\x1b[?1049h", "\x1b[?1049l", "\x1b[3L", "\x1b[2M", "\x1b[r", "\x1b[2;5r", "\x1bM", "tab\there", "\x08x",
          "\r\n" * 7, "é" * 90]


def fresh(screen: Screen) -> list[str]:
    """The emulator's rows, once it has drawn what the screen held back (see scroll_skip)."""
    screen._flush()
    return [line.text.rstrip() for line in screen._vt.view()]


def test_cached_rows_match_the_emulator_after_any_change():
    rng = random.Random(12)
    screen = Screen(30, 8, scrollback=50)
    for step in range(3000):
        if step % 250 == 249:
            screen.resize(rng.randint(10, 40), rng.randint(3, 12))
        else:
            screen.feed("".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4))).encode())
        if rng.random() < 0.3:  # the detector looks now and then, not after every read
            assert screen.visible_rows() == fresh(screen), step
    assert screen.visible_rows() == fresh(screen)


def test_notifications_are_taken_from_the_stream_once():
    screen = Screen(40, 5)
    screen.feed(b"working\x1b]9;Claude needs")
    screen.feed(b" your permission\x07 and \x1b]0;a title\x07 more\x07")
    notes = screen.agent.take_notifications()
    assert [(n.kind, n.text) for n in notes] == [("osc9", "Claude needs your permission"), ("bel", "")]
    assert screen.agent.take_notifications() == []
    assert screen.title == "a title" and "working and  more" in screen.visible_rows()[0]
