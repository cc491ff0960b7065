"""The VT screen on pyavt and the key names, fed real byte streams (no child needed)."""

from __future__ import annotations

import pytest

from tikitaka.terminals.keys import KEY_NAMES, UnknownKey, key_bytes
from tikitaka.terminals.screen import Screen


def feed_bytewise(screen: Screen, data: bytes) -> bytes:
    return b"".join(screen.feed(data[i:i + 1]) for i in range(len(data)))


def test_utf8_split_at_every_byte_renders_whole_characters():
    screen = Screen(40, 5)
    replies = feed_bytewise(screen, "안녕하세요 日本語 ✓\r\n".encode())
    assert replies == b""
    assert screen.text(5).splitlines()[0] == "안녕하세요 日本語 ✓"


def test_device_queries_are_answered_even_when_split():
    screen = Screen(40, 5)
    replies = feed_bytewise(screen, b"abc\x1b[6n\x1b[c")
    assert replies == b"\x1b[1;4R\x1b[?62;22c"  # DSR reports the cursor at the query (row 1, col 4)


def test_the_queries_programs_probe_a_terminal_with_are_answered_as_xterm_answers():
    """DSR 5 ("are you there"), XTVERSION (Claude Code and neovim send it at start), DA2 (Emacs
    waits for it at start) and the text area's size (`CSI 18 t`: rows, then columns); a tmux pane
    answers all four, a tab did not, and a program waiting for them waited out its timeout.
    Split anywhere, in one read or many."""
    from tikitaka.terminals.replies import version as version_reply

    version = version_reply().encode()
    wanted = b"\x1b[0n" + version + b"\x1b[8;5;40t" + version + b"\x1b[>1;0;0c" * 2
    assert version.startswith(b"\x1bP>|tikitaka ") and version.endswith(b"\x1b\\")
    queries = b"\x1b[5n\x1b[>q\x1b[18tx\x1b[>0q\x1b[>c\x1b[>0c"
    assert Screen(40, 5).feed(queries) == wanted
    assert feed_bytewise(Screen(40, 5), queries) == wanted
    assert Screen(40, 5).feed(b"\x1b[>4;1m\x1b[14t\x1b[19t\x1b[>1c") == b""  # (not ours to answer: as before)


def test_dsr_reports_the_cursor_at_that_point_in_the_stream():
    screen = Screen(40, 5)
    assert screen.feed(b"\r\nxy\x1b[6nmore text") == b"\x1b[2;3R"


def test_title_and_bracketed_paste_split_across_feeds():
    screen = Screen(40, 5)
    screen.feed(b"\x1b]0;first ti")
    screen.feed(b"tle\x07\x1b[?20")
    screen.feed(b"04h")
    assert screen.title == "first title" and screen.bracketed_paste
    screen.feed(b"\x1b]2;second\x1b\\\x1b[?2004l")
    assert screen.title == "second" and not screen.bracketed_paste


def test_alternate_screen_never_enters_scrollback():
    screen = Screen(20, 3, scrollback=100)
    screen.feed(b"".join(b"primary %d\r\n" % i for i in range(6)))
    before = screen.text(50)
    screen.feed(b"\x1b[?1049h\x1b[2J\x1b[H" + b"".join(b"alt %d\r\n" % i for i in range(10)))
    assert screen.alt_screen and "alt 9" in screen.text(50) and "primary" not in screen.text(50)
    screen.feed(b"\x1b[?1049l")
    assert not screen.alt_screen and screen.text(50) == before


def test_scrollback_limit_and_old_lines_as_text():
    screen = Screen(20, 3, scrollback=1500)  # 1000 styled lines in pyavt, the rest plain text
    screen.feed(b"".join(b"\x1b[31mline %d\x1b[0m\r\n" % i for i in range(3000)))
    lines = screen.text(2000).splitlines()
    assert len(lines) == 1500 + 2  # the limit, plus the screen rows above the cursor line
    assert lines[-1] == "line 2999" and lines[0] == "line 1498"
    history = screen.history_lines(0, 2)
    assert [row[0][0] for row in history] == ["line 1498", "line 1499"]


@pytest.mark.parametrize("held", [False, True], ids=["drawn", "held back"])
def test_erase_saved_lines_clears_the_history_and_keeps_the_screen(held):
    """`CSI 3 J` (what `clear` sends after `CSI 2 J`, as does the `clearTerminal` of Node's
    ansi-escapes) empties the scrollback, as tmux and xterm do; the screen, its colours and
    the cursor stay. (pyavt ignores it: cleared output stayed in the history.)"""
    screen = Screen(20, 3, scrollback=1500)  # 1000 styled lines in pyavt, then plain text
    screen._skip_scroll = held
    screen.feed(b"".join(b"line %d\r\n" % i for i in range(3000)) + b"\x1b[32mgreen")
    assert screen.history == 1500
    rows, cursor = screen.visible_rows(), screen.cursor
    screen.feed(b"\x1b[3J")
    assert screen.total_lines == 3 and screen.history == 0
    page = screen.history_page(10, 5)
    assert (page.total, page.offset, page.dropped, page.lines) == (0, 0, 3000 - 2, [])  # (2 rows left on the screen)
    assert screen.visible_rows() == rows and screen.cursor == cursor
    assert screen.text(50).splitlines() == ["line 2998", "line 2999", "green"]
    screen.feed(b"\r\nnext\r\n")  # the history fills again from here, in the pen set before
    assert screen.total_lines - screen.rows == 2
    assert [row[0][0].rstrip() for row in screen.history_lines(0, 2)] == ["line 2998", "line 2999"]
    (green, green_style), (next_, next_style) = (screen.snapshot().lines[row][0] for row in (0, 1))
    assert (green.rstrip(), next_.rstrip(), green_style.fg, next_style.fg) == ("green", "next", 2, 2)


def test_erase_saved_lines_on_the_alternate_screen_clears_the_primary_history():
    screen = Screen(20, 3, scrollback=100)
    screen.feed(b"".join(b"primary %d\r\n" % i for i in range(50)) + b"prompt$ ")
    screen.feed(b"\x1b[?1049h\x1b[H\x1b[2J\x1b[3Jfull screen")
    assert screen.alt_screen and screen.visible_rows()[0] == "full screen"
    screen.feed(b"\x1b[?1049l")
    assert not screen.alt_screen and screen.total_lines == 3
    assert screen.visible_rows() == ["primary 48", "primary 49", "prompt$"]
    assert screen.cursor[:2] == (2, 8)
    # The 48 rows erased count as dropped, as on the primary screen: a UI that numbered them
    # must not take the rows printed next for them.
    assert screen.dropped == 48
    screen.feed(b"\r\nafter\r\n")
    page = screen.history_page(0, 10, start=48)  # the row numbered 48: the oldest kept
    assert [row[0][0].rstrip() for row in page.lines] == ["primary 48", "primary 49"]


def test_changed_rows_and_styles():
    screen = Screen(20, 4)
    screen.feed(b"x")  # pyavt reports every row on its first feed
    screen.take_update()
    screen.feed(b"\x1b[2;1H\x1b[1;38;2;1;2;3mhi\x1b[0m \x1b[48;5;200mthere\x1b[0m")
    update = screen.take_update()
    assert set(update.lines) == {1} and not update.full
    (text1, style1), (text2, style2), (text3, style3) = update.lines[1][:3]
    assert (text1, style1.bold, style1.fg) == ("hi", True, (1, 2, 3))
    assert style3.bg == 200 and text3 == "there"
    assert screen.take_update().lines == {}


def test_wide_characters_appear_once_per_cell_pair():
    screen = Screen(10, 2)
    screen.feed("한국".encode())
    text = "".join(t for t, _ in screen.snapshot().lines[0])
    assert text.startswith("한국") and len(text) == 8  # 2 wide chars (4 cells) + 6 blanks


def test_key_names():
    assert key_bytes("Enter") == b"\r" and key_bytes("ctrl+c") == b"\x03" and key_bytes("CTRL+Z") == b"\x1a"
    assert key_bytes("up") == b"\x1b[A" and key_bytes("up", app_cursor=True) == b"\x1bOA"
    assert key_bytes("shift+tab") == b"\x1b[Z" and key_bytes("backspace") == b"\x7f"
    for name in KEY_NAMES:
        assert key_bytes(name)
    with pytest.raises(UnknownKey) as info:
        key_bytes("hyper+q")
    assert "ctrl+a" in str(info.value)


@pytest.mark.parametrize("seed", range(12))
def test_the_history_count_is_exact_after_every_kind_of_output(seed):
    """What every frame says (`history`) against the rows counted one by one, after each
    piece of a random mix: lines, scrolling regions, resizes, the alternate screen, erased
    history, a full reset, a flood held back and drawn. (The count is kept between scrolls; a way of
    scrolling it misses would show here.)"""
    import random

    rng = random.Random(seed)
    screen = Screen(30, 6, scrollback=1200)  # 1000 styled lines in pyavt, then plain text
    pieces = [
        lambda: b"".join(b"line %d\r\n" % rng.randrange(10**6) for _ in range(rng.choice((1, 3, 40, 1500)))),
        lambda: b"x" * rng.randrange(1, 90),  # typing, and lines that wrap
        lambda: b"\x1b[2;4r\x1b[4H\n\n\x1b[r",  # a scrolling region: nothing goes to the history
        lambda: b"\x1b[6H\x1b[%dS" % rng.randrange(1, 9),  # SU scrolls the whole screen up
        lambda: b"\x1b[%dT" % rng.randrange(1, 4),  # SD: down, nothing into the history
        lambda: b"\x1bM\x1b[H\x1bM",  # RI at the top
        lambda: b"\x1b[?1049h\x1b[2Jfull\r\n\r\n\r\n\r\n\r\n\r\n\x1b[?1049l",
        lambda: b"\x1b[H\x1b[2J",  # clear: the screen only
        lambda: b"\x1b[H\x1b[2J\x1b[3J",  # `clear`: the history too
        lambda: b"\x1b[?1049h\x1b[3J\x1b[?1049l",
        lambda: b"".join(b"old %d\r\n" % i for i in range(rng.choice((5, 1100)))) + b"\x1bc",  # RIS: pyavt empties its history
        lambda: (b"".join(b"old %d\r\n" % i for i in range(1100)) + b"\x1b", b"c"),  # ... cut between two reads
        lambda: b"\x1b[H\x1b[2J" + b"".join(b"row %d\r\n" % i for i in range(5)),  # a redraw: every row changes
    ]
    for _ in range(120):
        if rng.random() < 0.08:
            screen.resize(rng.choice((20, 30, 44)), rng.choice((4, 6, 9)))
        else:
            piece = rng.choice(pieces)()
            for data in piece if isinstance(piece, tuple) else (piece,):
                screen.feed(data)
        history = screen.history  # (first: it draws what is held back)
        assert history == (0 if screen.alt_screen else len(screen._plain) + max(0, len(screen._vt.lines()) - screen.rows))


def test_erasing_the_screen_keeps_its_rows_in_the_history_as_tmux_does():
    """ED 2 (a shell's ctrl+l, `printf '\\e[H\\e[2J'`) and ED 0 from the top-left corner erase
    the screen; tmux (`scroll-on-clear`), VTE, Windows Terminal and Alacritty scroll the rows in
    use into the history first, and pyavt dropped them. ED 0 elsewhere, and the alternate
    screen, keep nothing, as there."""
    def history(screen: Screen) -> list[str]:
        return ["".join(text for text, _ in row).rstrip() for row in screen.history_lines(0, 100)]

    for erase in (b"\x1b[H\x1b[2J", b"\x1b[2J", b"\x1b[H\x1b[J", b"\x1b[H\x1b[0J"):
        screen = Screen(20, 6, scrollback=100)
        screen.feed(b"$ seq 1 3\r\n1\r\n2\r\n3\r\n$ " + erase + b"after")
        assert history(screen) == ["$ seq 1 3", "1", "2", "3", "$"], erase
        assert [row.strip() for row in screen.visible_rows() if row.strip()] == ["after"] and screen.total_lines == 5 + 6
    screen = Screen(20, 6, scrollback=100)
    screen.feed(b"one\r\ntwo\r\n\x1b[J\x1b[2;2H\x1b[J")  # ED 0 below the text, then from a column in
    assert history(screen) == [] and screen.visible_rows()[:2] == ["one", "t"]
    screen.feed(b"\x1b[?1049hfull\x1b[2J\x1b[?1049l")
    assert history(screen) == []


@pytest.mark.parametrize("seed", range(8))
def test_the_screen_erased_after_its_rows_went_to_the_history_is_as_pyavt_leaves_it(seed):
    """Keeping the rows scrolls them up under a full-screen margin, then puts pyavt's state
    back: margins, origin mode, the pen, character sets, insert and wrap modes, the saved
    cursor, the cursor (and its pending wrap) -- the erased screen must be exactly pyavt's own."""
    import random

    import avt

    rng = random.Random(seed)
    states = ["\x1b[2;5r", "\x1b[?6h", "\x1b[31;1m", "\x1b(0", "\x1b)0\x0e", "\x1b[4h", "\x1b[?7l", "\x1b[20h",
              "\x1b7", "\x1b[3;4H", "\x1b[?25l", "x" * 30, "\x1b[44m", "\x1b[6;1H" + "y" * 20]
    setup = "line a\r\nline b\r\n" + "".join(rng.sample(states, rng.randrange(1, 7)))
    erase = rng.choice(["\x1b[2J", "\x1b[H\x1b[J"])
    native = avt.Vt(20, 6, scrollback_limit=100)
    native.feed_str(setup + erase + "after")
    screen = Screen(20, 6, scrollback=100)
    screen.feed((setup + erase + "after").encode())
    assert screen._vt.dump() == native.dump(), setup  # noqa: SLF001


def decorated_blanks(screen: Screen) -> list[tuple[int, str]]:
    """The rows with a blank in inverse, underline or strike-through, and which."""
    found = []
    for row, line in sorted(screen.snapshot().lines.items()):
        for text, style in line:
            if not text.strip() and (style.inverse or style.underline or style.strike):
                found.append((row, text))
    return found


@pytest.mark.parametrize("reads", [
    [b"\x1b[7m", b"WARNING\r\n", b"\x1b[27m"],  # tput smso; echo WARNING; tput rmso
    [b"\x1b[4mTitle\r\n\x1b[24m"],
    [b"\x1b[0;1;9mgone\r\n\r\n\x1b[0m"], [b"\x1b[1;3;4;31mrich\r\n\r\n\x1b[0m"],
    [b"\x1b[7m", b"".join(b"%d\r\n" % n for n in range(3000))],  # a flood: held back, then drawn
    [b"\x1b[7;31mred\x1b[K\x1b[2X\x1b[3@\x1b[P\x1b[L\x1b[S\x1b[T\x1bM\x1bD\x1bE\x1b[2J"],
    [b"\x1b[4m\x1b7\x1b[24m\x1b8\r\n\r\n\r\n\r\n"],  # DECRC brings underline back
    [b"\x1b[4m\x1b[?1049h\x1b[24m\x1b[?1049l\r\n\r\n\r\n\r\n"],
    [b"\x1b[7m\x1b[?1049h"], [b"\x1b[7m\x1b[?1047h"], [b"\x1b[4m\x1b[?47h"],  # the alternate screen, cleared
])
def test_blanks_made_while_a_decoration_is_on_do_not_take_it_as_in_xterm_and_tmux(reads):
    """pyavt gives blanks the whole pen: a line feed at the bottom with inverse on left a bar
    across the next row (terminals/pen.py)."""
    screen = Screen(20, 4, 100)
    screen.feed(b"\r\n" * 6)  # at the bottom: each line feed scrolls a row in
    for data in reads:
        screen.feed(data)
    assert decorated_blanks(screen) == []
    screen.feed(b"\x1b[0mX\x1b[4mY")  # what is printed still has them
    printed = [(char, style.underline) for text, style in screen.snapshot().lines[screen.cursor[0]] for char in text]
    assert printed[:2] == [("X", False), ("Y", True)]


def test_after_a_full_reset_the_mend_does_not_bring_a_decoration_back():
    """The mend turns decorations back on after each thing that makes blanks: only those the
    pen has (a RIS forgets the pen and what DECSC saved)."""
    screen = Screen(20, 4, 100)
    screen.feed(b"\x1b[7m\x1b7\x1bc")
    screen.feed(b"\x1b8\r\n\r\n\x1b[KZ")
    text, style = screen.snapshot().lines[2][0]
    assert (text[0], style.inverse) == ("Z", False)
