"""What Textual draws again, through the real `tiki` in tmux: a change costs the rows that
change, and what is drawn is what a whole redraw of the screen shows (the help opened and
closed has Textual draw every cell again). Bytes counted as `bench/outer_bytes.py` counts
them: `tmux pipe-pane -O` copies every byte the UI writes to its terminal."""

from __future__ import annotations

import time

from conftest import wait_until
from tmux_outer import BASH, Outer, pytestmark  # noqa: F401


def whole_redraw(outer: Outer, window: str) -> list[list[tuple[str, str]]]:
    """Every cell of the window once Textual has drawn the whole screen again."""
    outer.keys(window, "C-\\", "?")
    outer.wait(window, "Every key goes to")
    outer.keys(window, "Escape")
    wait_until(lambda: "Every key goes to" not in outer.screen(window), 10, 0.1, what="the help to close")
    outer.settled(window)
    return outer.cells(window, outer.cols)


def without_blink(outer: Outer, window: str, cells: list[list[tuple[str, str]]]) -> list[list[tuple[str, str]]]:
    """`cells` with the panel's input cursor (on the placeholder's first character, blinking:
    shown or not depends on the moment) taken as the character alone."""
    for row, line in enumerate(outer.screen(window).splitlines()):
        if (col := line.find("CHT: type into")) >= 0:
            cells[row][col] = (cells[row][col][0], "")
    return cells


def test_the_keyboard_to_the_panel_and_back_draws_what_changed(tiki_env, tmp_path):
    """Prefix a, there and back: Textual's screen repaints itself whole when the focused
    widget changes (11,091 and 15,256 bytes at 140x45), where the input line's look and the
    cursor are all that change."""
    outer = Outer(tiki_env, 140, 45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        window = "w0"
        outer.wait(window, "CHT: type into")
        for label in ("to the panel", "back to the tab"):
            outer.settled(window)
            received = tmp_path / f"{label}.bytes"
            outer.tmux("pipe-pane", "-O", "-t", window, f"cat > '{received}'")
            time.sleep(0.3)  # (tmux's pipe is open before the keys go)
            outer.keys(window, "C-\\", "a")
            time.sleep(0.5)
            painted = outer.cells(window, outer.cols)
            outer.tmux("pipe-pane", "-t", window)
            written = received.stat().st_size if received.exists() else 0
            assert written < 3000, (label, written)
            assert without_blink(outer, window, painted) == without_blink(outer, window, whole_redraw(outer, window)), label
    finally:
        outer.close()
