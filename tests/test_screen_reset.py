"""After a terminal reset (RIS, what `reset` and the end of a garbled stream send) the modes
tikitaka tracks beside pyavt are reset too: the tab is back on the primary screen (so
`terminal-read` includes its scrollback again) and bracketed paste is off (so a send is not
wrapped in paste markers the program no longer expects)."""

from __future__ import annotations

from tikitaka.terminals.screen import Screen


def test_ris_resets_alternate_screen_and_bracketed_paste():
    screen = Screen(20, 5, scrollback=100)
    screen.feed(b"one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n\x1b[?1049h\x1b[?2004hin-alt")
    assert screen.alt_screen and screen.bracketed_paste
    screen.feed(b"\x1bcafter-reset")
    assert not screen.alt_screen and not screen.bracketed_paste
    assert screen.text(3) == "after-reset"
    screen.feed(b"\r\n" * 6 + b"below")
    assert "after-reset" in screen.text(20)  # scrollback is read again on the primary screen
