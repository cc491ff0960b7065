"""What Textual draws again, through the real `tiki` in tmux: a change costs the pieces that
change, and what is drawn is what a whole redraw of the screen shows (prefix R draws every
cell again). Bytes counted as `bench/outer_bytes.py` counts them: `tmux pipe-pane -O` copies
every byte the UI writes to its terminal."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Callable

from tmux_outer import BASH, Outer, pytestmark  # noqa: F401


def whole_redraw(outer: Outer, window: str) -> list[list[tuple[str, str]]]:
    """Every cell of the window once the UI has drawn the whole screen again (prefix R)."""
    outer.settled(window)
    outer.keys(window, "C-\\", "R")
    time.sleep(0.5)
    outer.settled(window)
    return outer.cells(window, outer.cols)


def bytes_written(outer: Outer, window: str, tmp_path: Path, label: str, action: Callable[[], object],
                  wait: float = 0.5) -> int:
    """What the UI in `window` writes to its terminal while `action()` runs and `wait` seconds
    after."""
    received = tmp_path / f"{label}.bytes"
    outer.tmux("pipe-pane", "-O", "-t", window, f"cat > '{received}'")
    time.sleep(0.3)  # (tmux's pipe is open before the keys go)
    action()
    time.sleep(wait)
    outer.tmux("pipe-pane", "-t", window)
    return received.stat().st_size if received.exists() else 0


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
            written = bytes_written(outer, window, tmp_path, label, lambda: outer.keys(window, "C-\\", "a"))
            painted = outer.cells(window, outer.cols)
            assert written < 3000, (label, written)
            assert without_blink(outer, window, painted) == without_blink(outer, window, whole_redraw(outer, window)), label
    finally:
        outer.close()


def test_the_start_writes_each_piece_of_the_screen_once(tiki_env, tmp_path):
    """A UI starting (or attaching) drew the screen about three times over: Textual lays it out
    and draws it, redraws the main area, then the whole screen again once it is resumed --
    28,787 bytes at 120x36, where a tmux client attaching writes ~1,000 (a user over SSH pays
    for each). Each piece is written once now, default blanks erased."""
    outer = Outer(tiki_env, 120, 36)
    try:
        window = "w0"

        def start() -> None:
            outer.start_ui(tmp_path / "ws.toml", BASH)
            outer.wait(window, "CHT: type into")
            outer.wait(window, "idle")

        written = bytes_written(outer, window, tmp_path, "start", start, wait=1.0)
        painted = outer.cells(window, outer.cols)
        assert written < 12_000, written
        assert without_blink(outer, window, painted) == without_blink(outer, window, whole_redraw(outer, window))
    finally:
        outer.close()


def test_prefix_R_draws_over_what_something_else_wrote(tiki_env, tmp_path):
    """The UI writes only what changed, so what another program writes on its terminal (a
    `wall` message, a background job's output) would stay until those cells change: prefix R
    draws every cell again, the dialogs' screen and the one behind too."""
    outer = Outer(tiki_env, 120, 36)
    try:
        window = "w0"
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.wait(window, "CHT: type into")
        clean = without_blink(outer, window, whole_redraw(outer, window))
        tty = outer.tmux("display-message", "-p", "-t", window, "#{pane_tty}").strip()
        for row in (3, 20, 35):  # the tab, the panel, the panel's input line
            subprocess.run(["sh", "-c", f"printf '\\033[{row};50HBROADCAST-FROM-ELSEWHERE' > {tty}"], check=True)
        outer.wait(window, "BROADCAST-FROM-ELSEWHERE")
        assert without_blink(outer, window, whole_redraw(outer, window)) == clean
        assert "BROADCAST" not in outer.screen(window)
        # the same under a dialog (the help): around it, the screen behind is drawn again too
        outer.keys(window, "C-\\", "?")
        outer.wait(window, "Every key goes to")
        under_help = without_blink(outer, window, whole_redraw(outer, window))
        subprocess.run(["sh", "-c", f"printf '\\033[2;2HBROADCAST-FROM-ELSEWHERE' > {tty}"], check=True)
        outer.wait(window, "BROADCAST-FROM-ELSEWHERE")
        assert without_blink(outer, window, whole_redraw(outer, window)) == under_help
    finally:
        outer.close()



def test_a_tab_shown_for_the_first_time_is_painted_once(tiki_env, tmp_path):
    """A tab the UI had not shown yet is resized to the view as the UI starts watching it,
    which marks every row changed: the host sent its snapshot and then every row again (the
    same screen), and the UI painted the tab twice (3,980 bytes for a tab of 30 lines at
    140x45, where a tab shown before took 2,152). (The UI now skips rows it shows already, so
    the host's side of it is `test_ui_protocol_flow.py::test_a_tab_watched_for_the_first_time_is_sent_once`.)"""
    def tab(name: str) -> str:
        # (the row's mark, `b30-b`, is where it differs from the other tabs' rows: only the cells
        # that differ from what the terminal shows are written)
        lines = f"for i in $(seq 1 30); do printf '\\033[3%dm{name}%02d-{name} row\\033[0m coloured\\n' $((i % 7 + 1)) $i; done"
        command = json.dumps(["bash", "--norc", "--noprofile", "-c", f"{lines}; exec sleep 1000"])
        return f'[[tab]]\nname = "{name}"\ncommand = {command}\n'

    outer = Outer(tiki_env, 140, 45)
    try:
        window = "w0"
        outer.start_ui(tmp_path / "ws.toml", "".join(tab(name) for name in "abcd"), ready="a30-a row")
        outer.wait(window, "CHT: type into")
        for number, name in ((2, "b"), (3, "c"), (4, "d")):  # each shown for the first time
            outer.settled(window)
            bytes_written(outer, window, tmp_path, name, lambda: outer.keys(window, "C-\\", str(number)))
            assert f"{name}30-{name} row" in outer.screen(window)
            # (the tab bar's states may change meanwhile: the tab's rows are what is counted)
            assert (tmp_path / f"{name}.bytes").read_bytes().count(f"{name}30-{name}".encode()) == 1, name
    finally:
        outer.close()


def test_rows_a_program_draws_again_unchanged_cost_nothing(tiki_env, tmp_path):
    """An Ink CLI (Claude Code, Gemini CLI) draws its whole input area again at every tick of
    its spinner: the host's frame holds every row it wrote, and the UI wrote each to its
    terminal, ~4.5 KB a tick at 140x45 where one row changed (1.1x a tmux client's bytes,
    bench/outer_bytes.py --claude). A row the terminal shows already is not written again."""
    script = ("import time\n"
              "for tick in range(1, 21):\n"
              "    print('\\x1b[8;1H\\x1b[J' + 'spinner tick %02d' % tick + '\\r\\n' + '\\u2500' * 80 + '\\r\\n'\n"
              "          + 'STILL-' + 'FOOTER the same every tick', end='', flush=True)\n"
              "    time.sleep(0.1)\n")
    (tmp_path / "ink.py").write_text(script)
    outer = Outer(tiki_env, 140, 45)
    try:
        window = "w0"
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.wait(window, "CHT: type into")
        outer.literal(window, f"clear; python3 {tmp_path / 'ink.py'}; sleep 1000")
        outer.settled(window)
        written = tmp_path / "ink.bytes"
        bytes_written(outer, window, tmp_path, "ink", lambda: (outer.keys(window, "Enter"), outer.wait(window, "tick 20")))
        assert outer.screen(window).count("STILL-FOOTER") == 1
        assert written.read_bytes().count(b"STILL-FOOTER") == 1  # (drawn by the first tick)
        # (the row that changes: its number at each frame, what stays of it once)
        assert written.read_bytes().count(b"spinner tick") == 1
        assert b"\x1b[9;14H20" in written.read_bytes()
        painted = outer.cells(window, outer.cols)
        assert without_blink(outer, window, painted) == without_blink(outer, window, whole_redraw(outer, window))
    finally:
        outer.close()


def test_what_the_ui_writes_is_what_a_whole_redraw_shows_after_each_action(tiki_env, tmp_path):
    """The UI writes only the pieces it takes as changed (app/tui/outer_cells.py): after each
    thing a user does -- dialogs opened, typed into and closed, the panel moved, the zoom, a
    flood, scrollback mode, vim's wide characters, another tab -- the screen is cell for cell
    what every cell drawn again (prefix R) shows."""
    notes = tmp_path / "notes.txt"
    notes.write_text("".join(f"line {i} 한국어 日本語 🎉 end\n" for i in range(80)))
    bash = '"bash", "--norc", "--noprofile"'
    workspace = (f'[[tab]]\nname = "sh"\ncommand = [{bash}]\n'
                 f'[[tab]]\nname = "vim"\ncommand = ["vim", "-u", "NONE", "{notes}"]\n')
    outer = Outer(tiki_env, 140, 45)
    window = "w0"
    differ: list[str] = []

    def after(label: str, *keys: str, text: str | None = None, wait: float = 0.6) -> None:
        if text is not None:
            outer.literal(window, text)
        if keys:
            outer.keys(window, *keys)
        time.sleep(wait)
        outer.settled(window)
        painted = without_blink(outer, window, outer.cells(window, outer.cols))
        redrawn = without_blink(outer, window, whole_redraw(outer, window))
        # (Not the tab bar, row 0: the tabs' states change as they like -- vim's tab is busy a
        # moment after it is shown. Nor one cell alone whose character stayed: an input line's
        # blinking cursor, in a dialog or the panel.)
        cells = [(row, col, painted[row][col], redrawn[row][col]) for row in range(1, len(painted))
                 for col in range(len(painted[row])) if painted[row][col] != redrawn[row][col]]
        if len(cells) > 1 or cells and cells[0][2][0] != cells[0][3][0]:
            differ.append(f"{label}: {len(cells)} cells, {cells[:4]}")

    try:
        outer.start_ui(tmp_path / "ws.toml", workspace)
        outer.wait(window, "CHT: type into")
        after("the start")
        after("coloured output", text="ls --color=always -la /usr/bin | head -60; echo listed", wait=0.1)
        after("its Enter", "Enter", wait=1.0)
        after("vim's tab", "C-\\", "2", wait=1.5)
        after("vim paged and split", "C-f", ":", "split", "Enter")
        after("back to the shell", "C-\\", "l")
        after("the help", "C-\\", "?")
        after("the help closed", "Escape")
        after("the new-tab dialog", "C-\\", "c")
        after("a field of it typed into", "Tab", text="abc")
        after("the dialog closed", "Escape")
        after("the panel's input", "C-\\", "a", text="hello there")
        after("the panel's mode", "BTab")
        after("the keyboard back", "C-\\", "a")
        after("the panel below", "C-\\", "z")
        after("the panel hidden", "C-\\", "z")
        after("the panel right", "C-\\", "z")
        after("the zoom", "C-\\", "f")
        after("a flood zoomed", text="seq 1 3000", wait=0.1)
        after("its Enter", "Enter", wait=2.0)
        after("the zoom left", "C-\\", "f")
        after("scrollback mode, up", "C-\\", "[", "PageUp", "PageUp")
        after("scrollback mode left", "q")
        after("the palette", "C-\\", ":", text="zoo")
        after("the palette closed", "Escape")
        assert not differ, differ
    finally:
        outer.close()

