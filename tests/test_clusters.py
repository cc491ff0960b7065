"""Widths (issue 11): zero-width characters share their base's cell as in tmux and `wcwidth`,
so rows never shift, and each styled row measures exactly the screen's width in Rich (which
lays out the TUI) however Rich counts emoji."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from rich.cells import cell_len

from tikitaka.terminals import zero_width
from tikitaka.terminals.screen import Screen

# Where the cursor ends after printing each string at column 0, measured in tmux 3.3a
# (`printf STRING; printf '\e[6n'` in a pane); pyavt alone puts it further right for all but
# the plain wide characters.
TMUX_COLUMNS = {
    "a": 1, "a\u0301": 1, "한": 2, "😀": 2, "👍🏽": 4, "👨\u200d👩\u200d👧": 2, "❤\ufe0f": 1, "☺\ufe0f": 1,
    "🇯🇵": 2, "\u200b": 0, "⚠\ufe0f": 1, "🏳\ufe0f\u200d🌈": 1, "\u00ad": 1, "ｱ": 1, "❤\ufe0e": 1, "\u0300": 0,
    "x\u200d": 1, "\ufe0f": 0, "e\u0301\u0301": 1, "\u1100\u1161": 2, "\u0915\u094d\u0937": 2,
}


def row_text(screen: Screen, row: int) -> str:
    return "".join(text for text, _ in screen.snapshot().lines[row])


@pytest.mark.parametrize("text", list(TMUX_COLUMNS))
def test_the_cursor_ends_where_tmux_puts_it_and_the_row_measures_the_width(text):
    screen = Screen(20, 3)
    screen.feed(text.encode())
    assert screen.cursor[1] == TMUX_COLUMNS[text]
    screen.feed(b"|after")
    assert screen.text(1).startswith(text.lstrip("\u200b\u0300\ufe0f") + "|after")
    assert cell_len(row_text(screen, 0)) == 20  # Rich lays the row out in exactly 20 cells


def test_a_line_of_mixed_clusters_keeps_every_later_column():
    line = "e\u0301|👨\u200d👩\u200d👧|❤\ufe0f|👍🏽|한|\u0915\u094d\u0937|end"
    screen = Screen(40, 3)
    screen.feed(line.encode() + b"\x1b[1;30Hmark")
    assert screen.cursor[1] == 33
    text = row_text(screen, 0)
    assert cell_len(text) == 40 and text.rstrip().endswith("mark")
    assert cell_len(text[:text.index("mark")]) == 29  # "mark" drawn where the program put it


def test_a_mark_that_arrives_in_the_next_read_joins_the_cell_before_the_cursor():
    screen = Screen(20, 3)
    screen.feed(b"xy")
    screen.feed("\u0301z".encode())
    assert screen.text(1) == "xy\u0301z" and screen.cursor[1] == 3
    screen.feed(b"\r\n\xe4\xb8\xad")  # a wide character, then its mark alone
    screen.feed("\u0301!".encode())
    assert screen.text(1) == "中\u0301!" and screen.cursor[1] == 3


def test_a_mark_after_an_escape_sequence_does_not_break_the_sequence():
    screen = Screen(20, 3)
    screen.feed("\x1b[31mab\x1b[0m\u0301c".encode())
    assert screen.text(1) == "ab\u0301c" and screen.cursor[1] == 3
    (first, style), *_ = screen.snapshot().lines[0]
    assert first == "a" and style.fg == 1  # the SGR still applied
    screen.feed("\r\n\x1b]0;title e\u0301\x07\u0301ok".encode())  # marks in a title, one at column 0
    assert screen.title == "title e\u0301" and screen.text(1) == "ok"


def test_marks_at_the_right_margin_join_the_last_cell_and_wrapping_still_works():
    screen = Screen(5, 3)
    screen.feed(b"abcd")
    screen.feed("e\u0301".encode())
    screen.feed("\u0302".encode())  # pending wrap: the cursor still "is" on the last column
    screen.feed(b"f")
    assert screen.text(2) == "abcde\u0301\u0302\nf"


def test_characters_from_the_placeholder_ranges_are_shown_as_replacement():
    screen = Screen(20, 3)
    screen.feed("\U00100001\U00032401é\u0301".encode())
    assert screen.text(1) == "\ufffd\ufffdé\u0301"


def test_history_and_read_back_restore_clusters():
    screen = Screen(20, 3, scrollback=2000)  # old lines kept as plain text beyond 1000
    screen.feed(("👨\u200d👩\u200d👧 e\u0301\r\n" + "filler\r\n" * 1200).encode())
    assert "👨\u200d👩\u200d👧 e\u0301" in screen.text(1300)


@pytest.mark.skipif(unicodedata.unidata_version != zero_width.UNICODE_VERSION,
                    reason="the table was generated from another Unicode version")
def test_the_zero_width_table_is_what_unicodedata_says():
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from gen_zero_width import ranges

    assert tuple(n for pair in ranges() for n in pair) == zero_width.RANGES


def test_the_rows_the_agent_detector_reads_hold_the_characters_printed() -> None:
    """`visible_rows` (what the agent-state rules and a send's check of the prompt line read)
    gave the private-use placeholders a cluster is kept under: `fix the ✔️` read as `fix the
    \\U00100000`, so a prompt line holding typed text with an emoji or an accent never matched."""
    screen = Screen(40, 3)
    screen.feed("❯ fix the ✔\ufe0f and e\u0301 👍🏽\r\n".encode())
    assert screen.visible_rows()[0] == "❯ fix the ✔\ufe0f and e\u0301 👍🏽"
