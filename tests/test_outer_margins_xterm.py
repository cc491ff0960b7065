"""The real `tiki` UI in a real xterm: a terminal with left and right margins scrolls the view's
columns alone beside the agent panel (app/tui/outer_margins.py), where every row was written
again each frame -- 29x a tmux client's bytes for the same stream (bench/outer_bytes.py)."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

from conftest import TIKI, wait_until
from test_direct_paint_tmux import STREAM
from tmux_outer import BASH, logger_tab, panel_at, received, tiki
from xterm_outer import XTerm, pytestmark  # noqa: F401 - (pytestmark: its marks)


def start(env: dict[str, str], folder: Path, text: str) -> XTerm:
    workspace = folder / "ws.toml"
    workspace.write_text(text)
    term = XTerm(env, folder, f"cd {shlex.quote(str(folder))}; exec {TIKI} --workspace {shlex.quote(str(workspace))}")
    term.wait("CHT: type into")  # (the panel's input line: drawn after the tab bar)
    return term


def panel(screen: str) -> list[str]:
    """The agent panel's columns, right of the view's divider (the tab bar's row left out)."""
    rows = screen.splitlines()[1:]
    divider = min(row.index("│") for row in rows if "│" in row)
    return [row[divider:] for row in rows]


def test_beside_the_panel_a_terminal_with_margins_scrolls_the_view_alone(tiki_env, tmp_path):
    panel_at(tiki_env, "right")
    term = start(tiki_env, tmp_path, BASH)
    try:
        before = panel(term.settled())
        sent = term.received()
        assert tiki(tiki_env, "terminal-send", "sh", STREAM).returncode == 0
        term.wait("scrolled-2")
        time.sleep(0.3)
        written = term.received() - sent
        # Written again each line, the 44 rows of the view took ~100 bytes each: 60 frames of
        # them were ~260 KB. Scrolled, a frame is the new row and the margins' sequences.
        assert written < 60 * 44 * 100 / 8, written
        painted = term.screen()
        assert any("line 60" in row for row in painted.splitlines())
        assert panel(painted) == before  # the panel stayed where it was, whole
        term.keys("ctrl+backslash", "question")  # the help covers the view: closing it has Textual draw it again
        term.wait("Every key goes to")
        term.keys("Escape")
        wait_until(lambda: term.screen() == painted, 10, 0.2,
                   what="Textual's drawing of the screen to equal what was scrolled and painted")
    finally:
        term.close()


def test_the_terminals_answer_about_its_margins_reaches_no_tab(tiki_env, tmp_path):
    log = tmp_path / "keys.log"
    term = start(tiki_env, tmp_path, logger_tab(log))
    try:
        term.wait("logger ready")
        time.sleep(1.0)  # (the answer comes within milliseconds of the question)
        assert received(log) == ""
        term.keys("x")  # typing still reaches it
        wait_until(lambda: received(log) == "x", 10, 0.05, what="the key in the tab")
    finally:
        term.close()
