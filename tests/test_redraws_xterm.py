"""The UI writes only the pieces of the screen that changed (app/tui/outer_cells.py), so it must
know when the terminal lost what it showed. xterm, unlike tmux, cuts its rows when it is made
narrower: widened again, the cut columns are blank."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from conftest import TIKI
from test_outer_margins_xterm import start
from tmux_outer import BASH
from xterm_outer import pytestmark  # noqa: F401 - (pytestmark: its marks)


def test_a_terminal_narrowed_and_widened_at_once_is_drawn_whole(tiki_env, tmp_path):
    """Widened again before the UI drew the narrow screen (here: while it is stopped, so that
    it surely does not), the terminal is back at the size the UI drew at, its right part
    blank: the UI draws every cell again (the tab bar, the panel, its input line), not the
    pieces it took as still there. (Textual takes a resize to the size it had as no change.)"""
    term = start(tiki_env, tmp_path, BASH)
    try:
        before = term.settled()
        assert "CHT: type into" in before
        ui = int(subprocess.run(["pgrep", "-P", str(term.term.pid)], capture_output=True, text=True).stdout.split()[0])
        assert Path(TIKI).name in Path(f"/proc/{ui}/cmdline").read_text()
        width, height = (int(v) for v in term._xdotool("getwindowgeometry", "--shell", term.window)
                         .split("WIDTH=")[1].replace("HEIGHT=", "").split()[:2])
        os.kill(ui, signal.SIGSTOP)
        try:
            term._xdotool("windowsize", "--sync", term.window, str(width // 4), str(height))
            assert "CHT: type into" not in term.screen()  # (cut)
            term._xdotool("windowsize", "--sync", term.window, str(width), str(height))
        finally:
            os.kill(ui, signal.SIGCONT)
        time.sleep(0.5)
        assert term.settled() == before
    finally:
        term.close()
