"""Clicks and selections in a shell tab, through the real `tiki` UI in tmux, sent as a terminal
sends them (raw SGR reports): a plain click selects nothing and leaves the tab as it was (its
cursor shown); a drag's highlight goes once the user types on; a report from outside the
window (a drag past the edge, a resize racing a click) never takes the keyboard from the tab."""

from __future__ import annotations

import pytest
from conftest import wait_until
from test_cursor_tmux import tab_cursor, terminal_cursor
from test_mouse_tmux import sgr
from tmux_outer import BASH, Outer, pytestmark, read  # noqa: F401


@pytest.fixture
def outer(tiki_env, tmp_path):
    outer = Outer(tiki_env, 100, 30)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        wait_until(lambda: "$" in read(tiki_env, "sh") or "#" in read(tiki_env, "sh"), 15, 0.1, what="a prompt")
        yield outer
    finally:
        outer.close()


def reversed_rows(outer: Outer) -> list[int]:
    """The window's rows holding reversed text (a selection's highlight)."""
    return [y for y, line in enumerate(outer.screen("w0", escapes=True).splitlines()) if "\x1b[7m" in line]


def typed(outer: Outer, env: dict[str, str], text: str) -> None:
    outer.literal("w0", f"echo {text}")
    outer.keys("w0", "Enter")
    wait_until(lambda: f"\n{text}" in read(env, "sh"), 10, 0.1, what=f"{text!r} echoed in the tab")


def test_a_click_selects_nothing_and_a_drag_highlight_goes_when_typing(outer, tiki_env):
    wait_until(lambda: terminal_cursor(outer) == tab_cursor(tiki_env), 10, 0.1, what="the cursor at the prompt")
    sgr(outer, "w0", 0, 30, 10)  # a plain click in the shell
    sgr(outer, "w0", 0, 30, 10, release=True)
    typed(outer, tiki_env, "after-click")
    wait_until(lambda: terminal_cursor(outer) == tab_cursor(tiki_env), 10, 0.1,
               what=f"the cursor shown at the prompt after a click: {terminal_cursor(outer)} vs {tab_cursor(tiki_env)}")
    assert terminal_cursor(outer)[0]

    typed(outer, tiki_env, "line-one")
    typed(outer, tiki_env, "line-two")
    screen = outer.screen("w0").splitlines()
    row = next(y for y, line in enumerate(screen) if line.startswith("line-one"))
    sgr(outer, "w0", 0, 1, row + 1)  # drag from line-one over to line-two
    sgr(outer, "w0", 32, 8, row + 3)
    sgr(outer, "w0", 0, 8, row + 3, release=True)
    wait_until(lambda: reversed_rows(outer), 10, 0.1, what="the dragged rows highlighted")
    typed(outer, tiki_env, "typed-on")
    wait_until(lambda: not reversed_rows(outer), 10, 0.1, what=f"no highlight once typing; rows {reversed_rows(outer)}")
    wait_until(lambda: terminal_cursor(outer) == tab_cursor(tiki_env), 10, 0.1, what="the cursor shown again")


def test_a_report_from_outside_the_window_leaves_the_keyboard_with_the_tab(outer, tiki_env):
    sgr(outer, "w0", 0, 101, 10)  # one column past the 100-column window
    sgr(outer, "w0", 0, 101, 10, release=True)
    sgr(outer, "w0", 1, 300, 40)  # the middle button far outside
    sgr(outer, "w0", 1, 300, 40, release=True)
    typed(outer, tiki_env, "still-typing")
    outer.keys("w0", "C-\\", "?")  # and the prefix still works
    outer.wait("w0", "Every key goes to")


def reversed_text(outer: Outer, row_text: str) -> str:
    """The reversed (cursor) text on the window's row that holds `row_text`."""
    import re

    lines = outer.screen("w0", escapes=True).splitlines()
    line = next(line for line in lines if row_text in re.sub(r"\x1b\[[0-9;:]*m", "", line))
    shown, on = [], False
    for params, text in re.findall(r"\x1b\[([0-9;:]*)m|([^\x1b]+)", line):
        if text:
            shown.append(text if on else "")
            continue
        for param in params.split(";"):
            on = True if param == "7" else False if param in ("", "0", "27") else on
    return "".join(shown)


def test_scrollback_modes_cursor_steps_over_wide_characters_whole(outer, tiki_env):
    outer.literal("w0", "clear; echo 'ab漢字cdテスト😀ef'; echo second")
    outer.keys("w0", "Enter")
    wait_until(lambda: "\nsecond" in read(tiki_env, "sh"), 10, 0.1, what="the echo")
    outer.keys("w0", "C-\\", "[")
    outer.wait("w0", "[0/")  # the position indicator, [0/N]
    outer.keys("w0", "k", "k", *["h"] * 20, *["l"] * 7)  # up to the line, its start, 7 characters on
    wait_until(lambda: reversed_text(outer, "ab漢字") == "ス", 10, 0.1,
               what="the cursor over ス whole")
    outer.keys("w0", "l")
    wait_until(lambda: reversed_text(outer, "ab漢字") == "ト", 10, 0.1,
               what="one character on: ト")
    outer.keys("w0", "q")


def test_a_line_longer_than_the_screen_is_copied_and_searched_whole(tiki_env, tmp_path):
    """A long line wraps over rows: a drag over them copies it without newlines at the wraps,
    and scrollback mode's search finds (and copies) text that spans a wrap -- as tmux does."""
    outer = Outer(tiki_env, 100, 30)
    outer.tmux("set-option", "-s", "set-clipboard", "on")  # the outer terminal keeps what OSC 52 sets
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        wait_until(lambda: "$" in read(tiki_env, "sh") or "#" in read(tiki_env, "sh"), 15, 0.1, what="a prompt")
        line = "".join(str(n) for n in range(1, 120))  # 249 characters, no piece repeats
        outer.literal("w0", "clear; printf %s $(seq 1 119); echo; echo end")
        outer.keys("w0", "Enter")
        wait_until(lambda: "\nend" in read(tiki_env, "sh"), 10, 0.1, what="the long line")
        screen = outer.screen("w0").splitlines()
        first = next(y for y, row in enumerate(screen) if row.startswith(line[:100]))
        sgr(outer, "w0", 0, 1, first + 1)  # drag from its first character to its last, two rows down
        sgr(outer, "w0", 32, 30, first + 3)
        sgr(outer, "w0", 0, 49, first + 3, release=True)
        wait_until(lambda: outer.tmux("show-buffer") == line, 10, 0.1, what="the line copied whole")

        query = line[88:106]  # across the first wrap (starting left of the position indicator)
        assert line.count(query) == 1
        outer.keys("w0", "C-\\", "[")
        outer.wait("w0", "[0/")
        outer.keys("w0", "?")  # search backward from the cursor (below the line)
        outer.literal("w0", query)
        outer.keys("w0", "Enter")
        wait_until(lambda: reversed_text(outer, line[:80]) == line[88], 10, 0.1, what="the cursor on the match")
        outer.keys("w0", "v", *["l"] * (len(query) - 1), "y")  # select the match and copy it
        wait_until(lambda: outer.tmux("show-buffer") == query, 10, 0.1, what="the match across the wrap copied")
    finally:
        outer.close()
