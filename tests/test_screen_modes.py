"""What the screen must see besides pyavt (issue 11): DECCOLM clears and homes like xterm and
tmux, the mouse and focus modes a program asks for, and the clipboard sets (OSC 52) it makes
-- each also when split across reads."""

from __future__ import annotations

import base64

import pytest

from tikitaka.terminals import osc52
from tikitaka.terminals.screen import Screen


def feed_bytewise(screen: Screen, data: bytes) -> bytes:
    return b"".join(screen.feed(data[i:i + 1]) for i in range(len(data)))


def rows(screen: Screen) -> list[str]:
    return ["".join(text for text, _ in screen.snapshot().lines[row]).rstrip() for row in range(screen.rows)]


def test_deccolm_clears_and_homes_without_resizing():
    for sequence in (b"\x1b[?3h", b"\x1b[?3l", b"\x1b[?3;7h"):
        screen = Screen(40, 6)
        screen.feed(b"stale one\r\nstale two\r\n\x1b[5;10Hhere")
        screen.feed(sequence + b"new")
        assert rows(screen)[0] == "new" and not any(rows(screen)[1:]), sequence
        assert screen.cursor[:2] == (0, 3) and (screen.cols, screen.rows) == (40, 6)


def test_deccolm_split_across_reads_and_a_dsr_after_it():
    screen = Screen(40, 6)
    screen.feed(b"stale\r\n\x1b[4;4H")
    assert feed_bytewise(screen, b"\x1b[?3hab\x1b[6n") == b"\x1b[1;3R"
    assert rows(screen)[0] == "ab" and not any(rows(screen)[1:])


def test_decaln_fills_with_e_resets_the_margins_and_homes_the_cursor():
    # As VT510, xterm and tmux (checked in a tmux 3.3a pane): margins 2-3 and the cursor at
    # 3;5 before it; after it X lands at the top-left and SU scrolls the whole screen.
    for pieces in ([b"\x1b[2;3r\x1b[3;5H\x1b#8X\x1b[4;1HY\x1b[S"],
                   [b"\x1b[2;3r\x1b[3;5H\x1b#", b"8X\x1b[4;1HY\x1b[S"]):  # (split between two reads)
        screen = Screen(10, 4)
        for piece in pieces:
            screen.feed(piece)
        assert rows(screen) == ["E" * 10, "E" * 10, "Y" + "E" * 9, ""], pieces
        assert screen.cursor[:2] == (3, 1)
    screen = Screen(10, 4)
    screen.feed(b"\x1b[2;3r\x1b[?6h\x1b#8\x1b[2;3r\x1b[1;1HX")  # origin mode stays, as in tmux
    assert rows(screen)[1] == "X" + "E" * 9


def test_mouse_tracking_and_encoding_follow_the_last_set():
    screen = Screen(40, 6)
    assert (screen.modes.mouse, screen.modes.mouse_encoding, screen.modes.focus_events) == (0, "x10", False)
    feed_bytewise(screen, b"\x1b[?1000h\x1b[?1006h\x1b[?1004h")
    assert (screen.modes.mouse, screen.modes.mouse_encoding, screen.modes.focus_events) == (1000, "sgr", True)
    screen.feed(b"\x1b[?1002;1015h")
    assert (screen.modes.mouse, screen.modes.mouse_encoding) == (1002, "urxvt")
    screen.feed(b"\x1b[?1000l\x1b[?1006l")  # resetting modes that are not the current ones keeps these
    assert (screen.modes.mouse, screen.modes.mouse_encoding) == (1002, "urxvt")
    screen.feed(b"\x1b[?1003h\x1b[?1005h")
    assert (screen.modes.mouse, screen.modes.mouse_encoding) == (1003, "utf8")
    screen.feed(b"\x1b[?1003l\x1b[?1005l\x1b[?1004l")
    assert (screen.modes.mouse, screen.modes.mouse_encoding, screen.modes.focus_events) == (0, "x10", False)
    screen.feed(b"\x1b[?9h")
    assert screen.modes.mouse == 9


def test_reset_turns_mouse_reporting_off():
    screen = Screen(40, 6)
    screen.feed(b"\x1b[?1003h\x1b[?1006h\x1b[?1004h\x1b[?2004h\x1b[?1h")
    modes = screen.modes
    assert (modes.mouse, modes.mouse_encoding, modes.focus_events, modes.bracketed_paste, modes.app_cursor_keys) \
        == (1003, "sgr", True, True, True)
    screen.feed(b"\x1bc")
    modes = screen.modes  # (pyavt alone leaves the cursor keys in application mode after RIS)
    assert (modes.mouse, modes.mouse_encoding, modes.focus_events, modes.bracketed_paste, modes.app_cursor_keys) \
        == (0, "x10", False, False, False)


def b64(text: str) -> bytes:
    return base64.b64encode(text.encode()).decode().encode()


def test_clipboard_sets_are_captured_with_bel_or_st_even_split_bytewise():
    screen = Screen(40, 6)
    feed_bytewise(screen, b"before\x1b]52;c;" + b64("héllo") + b"\x07middle\x1b]52;p;" + b64("wörld") + b"\x1b\\after")
    assert [(s.selection, s.text) for s in screen.take_clipboard()] == [("c", "héllo"), ("p", "wörld")]
    assert screen.take_clipboard() == []
    assert rows(screen)[0] == "beforemiddleafter"  # nothing of the sequences is drawn


def test_clipboard_queries_and_garbage_are_ignored_and_what_follows_still_counts():
    screen = Screen(40, 6)
    replies = screen.feed(b"\x1b]52;c;?\x07\x1b]52;c;***\x07\x1b]52;c;" + b64("cut") + b"\x1b[6n")
    assert screen.take_clipboard() == []  # a query, bad base64, and one cancelled by another ESC
    assert replies == b"\x1b[1;1R"  # the DSR after the cancelled one was still answered


def test_a_large_clipboard_set_arrives_across_many_reads():
    screen = Screen(40, 6)
    text = "line of a big copy\n" * 20_000  # 380 KB of text, ~507 KB of base64
    data = b"\x1b]52;c;" + b64(text) + b"\x07tail"
    for start in range(0, len(data), 4096):
        screen.feed(data[start:start + 4096])
    (made,) = screen.take_clipboard()
    assert made.text == text and rows(screen)[0] == "tail"


def test_a_clipboard_set_over_the_limit_is_dropped_whole(monkeypatch):
    monkeypatch.setattr(osc52, "MAX_PAYLOAD", 1000)
    screen = Screen(40, 6)
    data = b"\x1b]52;c;" + b64("x" * 2000) + b"\x07" + b"\x1b]52;c;" + b64("small") + b"\x07"
    for start in range(0, len(data), 300):
        screen.feed(data[start:start + 300])
    assert [s.text for s in screen.take_clipboard()] == ["small"]


def test_osc52_encoder_round_trips():
    sequence = osc52.encode("copy é 한")
    assert sequence.startswith(b"\x1b]52;c;") and sequence.endswith(b"\x1b\\")
    assert osc52.parse(sequence[len(b"\x1b]52;"):-2].decode()).text == "copy é 한"
    wrapped = osc52.encode_for_tmux("x")
    assert wrapped.startswith(b"\x1bPtmux;\x1b\x1b]52;c;") and wrapped.endswith(b"\x1b\x1b\\\x1b\\")


def test_a_soft_reset_puts_the_cursor_keys_back_to_normal():
    screen = Screen(40, 6)
    screen.feed(b"\x1b[?1h")
    assert screen.app_cursor_keys
    screen.feed(b"\x1b[!p")
    assert not screen.app_cursor_keys


def test_the_quick_check_lets_every_sequence_the_scanner_reads_through():
    """The scanner skips reads with none of `_STARTS` in them: each sequence it acts on must
    start with one of them, or a change to the pattern would silently stop working."""
    from tikitaka.terminals.sequences import _PATTERN, _STARTS, ModeScanner

    samples = ["\x1b]0;title\x07", "\x1b]2;title\x1b\\", "\x1b]52;c;aGk=\x07", "\x1b[?2004h", "\x1b[?1049l",
               "\x1b[c", "\x1b[0c", "\x1b[5n", "\x1b[6n", "\x1b[!p", "\x1b[3J", "\x1bc", "\x1bM", "\x1b[ q", "\x1b[6 q",
               "\x1b[>q", "\x1b[>0q", "\x1b[>c", "\x1b[>0c", "\x1b[18t"]
    for sample in samples:
        assert _PATTERN.search(sample), sample
        assert any(sample.startswith(opening) for opening in _STARTS), sample
    scanner = ModeScanner()
    scanner.scan("\x1b[31mred\x1b[0m" * 100)  # colours only: skipped, nothing changes
    assert not scanner.bracketed_paste
    scanner.scan("\x1b[31mred\x1b[?20")  # a mode cut off at the end of a read ...
    scanner.scan("04h\x1b[0m")  # ... completes in the next
    assert scanner.bracketed_paste
    from tikitaka.terminals.sequences import _ANY_START

    for opening in _STARTS:
        assert _ANY_START.match(opening), opening


@pytest.mark.parametrize("split", [0, 1, 2, 3, 4])
def test_the_cursor_style_a_program_sets_is_kept_also_cut_between_reads(split):
    # DECSCUSR (`CSI Ps SP q`): vim and neovim ask for a bar in insert mode, shells in vi mode
    # for a block or a bar; the UI shows the cursor that way (0: the terminal's own).
    screen = Screen(40, 6)
    assert screen.cursor_style == 0
    data = b"text \x1b[5 q more"
    cut = data.index(b"\x1b") + split
    screen.feed(data[:cut])
    screen.feed(data[cut:])
    assert screen.cursor_style == 5 and screen.take_update().cursor_style == 5
    screen.feed(b"\x1b[2 q")
    assert screen.take_update(full=True).cursor_style == 2
    screen.feed(b"\x1b[ q")  # no parameter: the default again
    assert screen.cursor_style == 0
    screen.feed(b"\x1b[4 q\x1b[9 q")  # not a style: ignored
    assert screen.cursor_style == 4
    screen.feed(b"\x1bc")  # a full reset forgets it
    assert screen.cursor_style == 0


def test_decrqm_is_answered_for_the_modes_the_screen_follows_and_only_those():
    screen = Screen(40, 6)
    assert screen.feed(b"\x1b[?2026$p") == b"\x1b[?2026;2$y"  # synchronized output: known, reset
    assert screen.feed(b"\x1b[?2004h\x1b[?2004$p\x1b[?1006") == b"\x1b[?2004;1$y"  # (cut: the rest follows)
    assert screen.feed(b"h\x1b[?1006$p") == b"\x1b[?1006;1$y"
    assert screen.feed(b"\x1b[?7$p") == b""  # autowrap: pyavt's, not followed here: no answer rather than a guess


def test_a_synchronized_update_holds_the_screen_back_until_it_ends_or_lasts_too_long():
    import time

    from tikitaka.terminals.sequences import SYNC_LIMIT

    screen = Screen(40, 6)
    assert screen.sync_hold(time.monotonic()) == 0
    screen.feed(b"\x1b[?2026hhalf")
    now = time.monotonic()
    assert 0 < screen.sync_hold(now) <= SYNC_LIMIT
    screen.feed(b"\x1b[?2026h")  # started again: still the first one's limit
    assert screen.sync_hold(now + SYNC_LIMIT) == 0  # too long: shown all the same
    screen.feed(b" done\x1b[?2026l")
    assert screen.sync_hold(time.monotonic()) == 0
    assert screen.feed(b"\x1b[?2026$p") == b"\x1b[?2026;2$y"
    screen.feed(b"\x1b[?2026h\x1bc")  # a full reset ends it
    assert screen.sync_hold(time.monotonic()) == 0
