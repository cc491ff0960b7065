"""The tab's cursor is the outer terminal's own cursor, through the real `tiki` UI in tmux: it
stands where the program's cursor is, in the style the program asked for (DECSCUSR: vim's bar
in insert mode), hides under a dialog and while the agent panel has the keyboard, and the
terminal gets its own style back when the UI detaches (app/tui/terminal_cursor.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest
from conftest import wait_until
from tmux_outer import BASH, Outer, pytestmark, tiki  # noqa: F401


@pytest.fixture
def outer(tiki_env, tmp_path) -> Iterator[Outer]:
    outer = Outer(tiki_env, 100, 30)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        yield outer
    finally:
        outer.close()


def terminal_cursor(outer: Outer) -> tuple[bool, int, int]:
    """(shown, x, y) of the cursor of the terminal the UI runs in."""
    shown, x, y = outer.tmux("display-message", "-p", "-t", "w0", "#{cursor_flag} #{cursor_x} #{cursor_y}").split()
    return shown == "1", int(x), int(y)


def tab_cursor(env: dict[str, str]) -> tuple[bool, int, int]:
    """(visible, x, y) of the tab's cursor where the view shows it: below the tab bar's row."""
    cursor = json.loads(tiki(env, "terminal-read", "sh", "--cells").stdout)["cursor"]
    return cursor["visible"], cursor["col"], cursor["row"] + 1


def test_the_terminal_cursor_is_the_tabs_in_the_style_the_program_asked_for(outer, tiki_env, tmp_path):
    output = tmp_path / "ui.out"
    outer.tmux("pipe-pane", "-t", "w0", "-o", f"cat > '{output}'")  # every byte the UI writes
    wait_until(lambda: terminal_cursor(outer) == tab_cursor(tiki_env), 10, 0.1, what="the cursor at the prompt")
    outer.literal("w0", r"printf '\e[5 q'; echo styled")
    outer.keys("w0", "Enter")
    outer.wait("w0", "styled")
    wait_until(lambda: b"\x1b[5 q" in output.read_bytes(), 10, 0.1, what="a blinking bar asked of the terminal")
    wait_until(lambda: terminal_cursor(outer) == tab_cursor(tiki_env), 10, 0.1, what="the cursor after the output")
    # In vim the cursor follows its moves (and a dialog or the agent panel takes it away).
    Path(tmp_path / "notes.txt").write_text("first line\nsecond line\nthird line\n")
    outer.literal("w0", f"vim --clean -n {tmp_path / 'notes.txt'}")
    outer.keys("w0", "Enter")
    outer.wait("w0", "third line")
    outer.keys("w0", "j", "l", "l", "l")
    wait_until(lambda: terminal_cursor(outer)[1:] == (3, 2), 10, 0.1, what="the cursor on 'second line', column 3")
    assert terminal_cursor(outer) == tab_cursor(tiki_env)
    outer.keys("w0", "C-\\", "?")
    outer.wait("w0", "Every key goes to")
    wait_until(lambda: not terminal_cursor(outer)[0], 10, 0.1, what="no cursor under the help")
    outer.keys("w0", "Escape")
    wait_until(lambda: terminal_cursor(outer) == (True, 3, 2), 10, 0.1, what="the cursor back")
    outer.keys("w0", "C-\\", "a")  # the agent panel has the keyboard
    wait_until(lambda: not terminal_cursor(outer)[0], 10, 0.1, what="no tab cursor while the panel types")
    outer.keys("w0", "C-\\", "a")
    wait_until(lambda: terminal_cursor(outer) == (True, 3, 2), 10, 0.1, what="the cursor back in the tab")
    outer.keys("w0", ":q!", "Enter")
    # Detached, the terminal has its own cursor style again.
    outer.keys("w0", "C-\\", "d")
    outer.wait("w0", "TIKI-EXIT=0")
    written = output.read_bytes()
    assert written.rfind(b"\x1b[0 q") > written.rfind(b"\x1b[5 q")


def test_a_toast_over_the_cursor_hides_it_and_one_beside_it_does_not(tiki_env, tmp_path):
    from test_notify_tmux import CLAUDE

    outer = Outer(tiki_env, 120, 36)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + CLAUDE)
        assert tiki(tiki_env, "terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "20000").returncode == 0
        assert tiki(tiki_env, "terminal-send", "Claude", "make a demo dir").returncode == 0
        screen = outer.wait("w0", "Claude needs you").splitlines()  # a toast, up for 8 s
        row = max(n for n, line in enumerate(screen) if "▌" in line)
        left = screen[row].index("▌")  # the toast's left edge on its last row
        for col, shown in ((left - 4, True), (left + 2, False)):  # beside it, then under it
            outer.literal("w0", f"clear; printf '\\e[{row};{col + 1}H'; sleep 30")  # (the view's row 0 is screen row 1)
            outer.keys("w0", "Enter")
            wait_until(lambda col=col: terminal_cursor(outer)[1:] == (col, row) or not terminal_cursor(outer)[0], 10, 0.05,
                       what="the cursor moved")
            wait_until(lambda shown=shown: terminal_cursor(outer)[0] == shown, 5, 0.05,
                       what=f"the cursor {'shown beside' if shown else 'hidden under'} the toast")
            assert "Claude needs you" in outer.screen("w0")
            outer.keys("w0", "C-c")
    finally:
        outer.close()
