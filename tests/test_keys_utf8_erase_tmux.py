"""Erasing a character typed into a program that reads whole lines (`read`, `cat`, a password
prompt, Python's `input()` without readline), from the field: the real `tiki` UI in tmux, keys
sent as a terminal sends them, the line the program reads compared with a plain tmux pane's.
The kernel's line editing took Backspace off one byte of `é` in a tab (the line read `c3 78`
for é, Backspace, x) where tmux's pane read `78`: a tab's terminal was not in UTF-8 mode
(IUTF8), which tmux, xterm and every modern terminal set."""

from __future__ import annotations

import shutil
import sys

import pytest
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]
READ_LINE = "import sys, time; print('READ', sys.stdin.buffer.readline().hex(' '), flush=True); time.sleep(600)"


def read(outer: Outer, window: str) -> str:
    """The bytes the program in `window` read, as it printed them."""
    line = next(row for row in outer.wait(window, "READ ").splitlines() if "READ " in row)
    return line.split("READ ", 1)[1].split("  ")[0].strip()


def test_backspace_erases_a_whole_character_in_a_line_a_program_reads(tiki_env, tmp_path):
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", f'[[tab]]\nname = "reader"\ncommand = ["{sys.executable}", "-c", "{READ_LINE}"]\n')
        outer.window("ref")
        outer.keys("ref", f'exec {sys.executable} -c "{READ_LINE}"', "Enter")
        for window in ("w0", "ref"):
            outer.literal(window, "aé€😀")  # two, three and four bytes
            outer.keys(window, "BSpace", "BSpace")
            outer.literal(window, "x")
            outer.keys(window, "Enter")
        assert read(outer, "ref") == "61 c3 a9 78 0a"  # (the reference's own word on it)
        assert read(outer, "w0") == "61 c3 a9 78 0a"
    finally:
        outer.close()
