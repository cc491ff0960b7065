"""The cells the UI writes, with a real agent CLI in a tab: after each action the screen is
what a whole redraw (prefix R) shows (test_redraws_tmux.py has the same for the UI's own
screens and a shell)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import TIKI
from test_redraws_tmux import whole_redraw, without_blink
from tmux_outer import BASH, Outer, pytestmark  # noqa: F401


@pytest.mark.skipif(shutil.which("claude") is None, reason="needs claude (npm @anthropic-ai/claude-code, .ci/run)")
def test_a_real_agent_cli_through_the_cells(tiki_env, tmp_path):
    """The cells the UI writes with Claude Code in a tab (offline, onboarding marked done in a
    private HOME: its folder question, then its input box -- its own cursor moves, box rules,
    colours) beside a shell printing wide characters and a mark: after each action the screen
    is what a whole redraw shows."""
    claude = ('unset TMUX TMUX_PANE; export HOME="$(mktemp -d ./claude-home.XXXXXX)"; '
              'printf \'{"hasCompletedOnboarding": true, "theme": "dark"}\' > "$HOME/.claude.json"; '
              'claude; exec sleep 100000')
    tabs = (f'[[tab]]\nname = "claude"\ncommand = {json.dumps(["sh", "-c", claude])}\n' + BASH)
    outer = Outer(tiki_env, 140, 45)
    try:
        window = "w0"
        outer.start_ui(tmp_path / "ws.toml", tabs, ready="trust this folder", cwd=tmp_path)

        def frozen(stop: bool) -> int:
            """Claude Code stopped (its own cursor and tips change its screen as they like), or
            going on: the tab's processes, found by the host's socket in their environment."""
            mark = f"TIKI_SOCKET={tiki_env['TIKI_SOCKET']}".encode()
            signalled = 0
            for proc in Path("/proc").iterdir():
                try:
                    if proc.name.isdigit() and mark in (proc / "environ").read_bytes().split(b"\0") \
                            and b"claude" in (proc / "cmdline").read_bytes():
                        os.kill(int(proc.name), signal.SIGSTOP if stop else signal.SIGCONT)
                        signalled += 1
                except OSError:
                    pass
            return signalled

        def same_as_a_redraw(label: str) -> None:
            assert frozen(True), "Claude Code's process, to stop while the screen is compared"
            try:
                time.sleep(0.3)
                outer.settled(window)
                painted = without_blink(outer, window, outer.cells(window, outer.cols))
                redrawn = without_blink(outer, window, whole_redraw(outer, window))
            finally:
                frozen(False)
            # (not the tab bar, row 0: the tabs' states change as they like)
            assert painted[1:] == redrawn[1:], label

        same_as_a_redraw("the folder question")
        time.sleep(1.0)  # (an Enter right after its first screen is dropped, as in tmux)
        outer.keys(window, "Enter")
        outer.wait(window, "for shortcuts")
        same_as_a_redraw("the input box")
        outer.literal(window, "what is 6 times 7, \u4e2d\u6587")
        outer.wait(window, "what is 6 times 7")
        same_as_a_redraw("a prompt typed")
        outer.keys(window, "C-\\", "2")
        outer.literal(window, "printf 'wide \\u4e2d\\u6587 e\\u0301 x\\n'; seq 1 60")
        outer.keys(window, "Enter")
        outer.wait(window, "\n60")
        same_as_a_redraw("the shell")
        outer.keys(window, "C-\\", "1")
        outer.wait(window, "what is 6 times 7")
        same_as_a_redraw("back to Claude")
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
        outer.close()
