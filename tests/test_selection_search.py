"""Selection and scrollback search (issue 11) over a real screen fed real output: what a drag,
a double click and a triple click copy (wide characters whole, wrapped lines joined, trailing
blanks dropped), and `/`, `?`, `n`, `N` over the history."""

from __future__ import annotations

from tikitaka.terminals.screen import Screen
from tikitaka.terminals.search import Search, indicator
from tikitaka.terminals.selection import Point, Row, Selection, row_from_text, rows_from_screen


def screen_rows(data: str, cols: int = 10, rows: int = 4, scrollback: int = 100) -> list[Row]:
    screen = Screen(cols, rows, scrollback=scrollback)
    screen.feed(data.replace("\n", "\r\n").encode())
    return rows_from_screen(screen)


ROWS = screen_rows("hello world foo.bar/baz end\n한국어 text\nlast line")
# rows: 0 "hello worl" 1 "d foo.bar/" 2 "baz end" (0-1 wrapped), 3 "한국어 tex" 4 "t" (3 wrapped), 5 "last line"


def test_rows_know_wide_halves_and_wrapping():
    assert ROWS[0].wrapped and ROWS[1].wrapped and not ROWS[2].wrapped
    assert ROWS[3].cells[:6] == ("한", "", "국", "", "어", "") and ROWS[3].wrapped


def test_a_drag_copies_across_a_wrap_without_a_newline_and_ends_lines_with_one():
    selection = Selection.over(ROWS)
    selection.start(Point(0, 6))
    selection.extend(Point(3, 3))
    assert selection.text() == "world foo.bar/baz end\n한국"


def test_a_drag_backwards_and_from_the_right_half_of_a_wide_character():
    selection = Selection.over(ROWS)
    selection.start(Point(3, 3))  # the right half of 국
    selection.extend(Point(3, 0))
    assert selection.bounds() == (Point(3, 0), Point(3, 3)) and selection.text() == "한국"
    assert selection.contains(3, 1) and not selection.contains(3, 4)


def test_double_click_selects_a_word_across_a_wrap_and_triple_click_the_whole_line():
    selection = Selection.over(ROWS)
    selection.start(Point(1, 5), "word")
    assert selection.text() == "foo.bar/baz"
    selection.start(Point(0, 8), "word")  # "world" wraps after "worl"
    assert selection.text() == "world"
    selection.start(Point(2, 1), "line")
    assert selection.text() == "hello world foo.bar/baz end"
    selection.start(Point(5, 4), "word")  # a blank: the run of blanks
    assert selection.text() == ""


def test_selection_clamps_to_the_screen_and_copies_nothing_when_cleared():
    selection = Selection.over(ROWS)
    selection.start(Point(-3, -3))
    selection.extend(Point(99, 99))
    assert selection.text().startswith("hello") and selection.text().endswith("last line")
    selection.clear()
    assert selection.text() == "" and not selection.contains(0, 0)


def test_rows_from_the_ui_text_split_as_rich_measures():
    row = row_from_text("한e\u0301👨\u200d👩\u200d👧x", 8)
    assert row.cells == ("한", "", "e\u0301", "👨\u200d👩\u200d👧", "", "x", " ", " ")


def test_history_beyond_the_styled_part_is_selectable_as_text():
    rows = screen_rows("".join(f"old {i}\n" for i in range(1100)) + "new", cols=20, rows=3, scrollback=1500)
    selection = Selection.over(rows)
    selection.start(Point(0, 0), "line")
    assert selection.text() == "old 0"
    assert len(rows) == 1101 and rows[-1].cells[:3] == ("n", "e", "w")  # every line kept, the screen last


def test_search_forward_backward_next_previous_and_wrapping():
    rows = screen_rows("".join(f"line {i} {'needle' if i % 3 == 0 else 'hay'}\n" for i in range(12)), 20, 4)
    search = Search(rows.__getitem__, len(rows))
    bottom = Point(len(rows) - 1, 0)
    found = search.search("needle", bottom, backward=True)  # ?needle from the bottom
    assert found.start == Point(9, 7) and found.end == Point(9, 12)
    assert search.next().start.row == 6 and search.next().start.row == 3
    assert search.previous().start.row == 6  # N: the other way
    assert search.search("needle", Point(9, 7)).start.row == 0  # /needle past the last: wraps to the top
    assert search.search("Needle", bottom) is None  # a capital: case matters
    assert search.search("LINE 1", Point(0, 0)) is None and search.search("line 1", Point(0, 0)).start == Point(1, 0)


def test_search_across_a_wrap_and_wide_characters():
    rows = screen_rows("abc 한국어 def\nxyz", cols=6, rows=4)
    search = Search(rows.__getitem__, len(rows))
    found = search.search("한국", Point(0, 0))
    assert (found.start, found.end) == (Point(0, 4), Point(1, 1))  # across the wrap, 국 whole
    assert indicator(120, 10_000) == "[120/10000]"
