"""Field test: the outer window resized across the 120 columns below which the agent panel
docks at the bottom. A tmux pane resized from 140x45 to 100x30 tells its program the new size
once. A tiki tab's program is first told a size no window had -- the old width with the new
layout's height (140x32, wider than the 100-column window) -- and then the real one, so
programs that redraw on SIGWINCH (Claude Code, Codex, vim) draw for a width they do not have
(the same the other way: 100 -> 140 tells 52x29 first, 119 -> 121 tells 71x39 first; a window
shrunk to 1 column leaves the tab at 121x27). The real `tiki` under tmux."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from conftest import TIKI, wait_until
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]

WINCH_LOGGER = """
import os, signal, sys, time
def told(*_):
    cols, rows = os.get_terminal_size(0)
    sys.stdout.write(f"WINCH {cols}x{rows}\\n")
    sys.stdout.flush()
signal.signal(signal.SIGWINCH, told)
print("READY", flush=True)
while True:
    time.sleep(1)
"""


def sizes_told(env: dict[str, str]) -> list[tuple[int, int]]:
    out = subprocess.run([TIKI, "terminal-read", "log", "--lines", "200"], env=env, capture_output=True,
                         text=True, timeout=30).stdout
    return [(int(c), int(r)) for c, r in re.findall(r"^WINCH (\d+)x(\d+)$", out, re.M)]


def test_a_resize_across_the_panel_threshold_tells_the_program_one_real_size(tiki_env, tmp_path) -> None:
    command = json.dumps([sys.executable, "-c", WINCH_LOGGER])
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", f'[[tab]]\nname = "log"\ncommand = {command}\nrole = "shell"\n')
        outer.wait("w0", "READY")
        before = len(sizes_told(tiki_env))
        outer.tmux("resize-window", "-t", "w0", "-x", "100", "-y", "30")
        wait_until(lambda: any(c == 100 for c, _ in sizes_told(tiki_env)[before:]), 20, 0.05,
                   what="the program to be told the 100-column width")
        told = sizes_told(tiki_env)[before:]
        assert all(cols <= 100 for cols, _rows in told), (
            f"the window went from 140x45 to 100x30 and the program in the tab was told {told}: a size wider "
            "than the window came first (a tmux pane is told the new size once)")
        assert len(set(told)) == 1, f"the program was told {told} for one resize"
    finally:
        outer.close()
