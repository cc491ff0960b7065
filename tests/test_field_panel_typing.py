"""Typing into the agent panel in a real terminal (tmux): lines typed ahead, arriving in one
read as they do over SSH or while the UI is busy, are each sent once, in order."""

from __future__ import annotations

import shutil

import pytest
from conftest import BASH_TAB, wait_until
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def test_lines_typed_ahead_in_cht_mode_reach_the_tab_one_by_one(tiki_env, tmp_path):
    """Prefix a (CHT mode), then `echo tt-1⏎echo tt-2⏎echo tt-3⏎` arriving in one read: the
    shell gets `echo tt-1echo tt-2echo tt-3` once or twice (and empty lines), never three commands.
    In AI mode the same typing starts two runs of the merged text. The panel's Input (Textual)
    submits on Enter through its `submit` binding, an action that runs after the keys already
    read behind it were inserted, so each Submitted carries the whole merged line and the
    line is cleared only after (agent_panel.py `on_input_submitted`; the driver hands the
    read to Textual in one piece, app/tui/driver.py)."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.keys("w0", "C-\\", "a")
        outer.wait("w0", "CHT: type into the active tab")
        outer.literal("w0", "echo tt-1\recho tt-2\recho tt-3\r")  # one write, as a terminal sends type-ahead

        def tab_lines() -> list[str]:
            return [line.split("│")[0].strip() for line in outer.screen("w0").splitlines()]
        try:
            wait_until(lambda: "tt-3" in tab_lines(), 20, 0.1, what="tt-3 printed by the shell")
        except AssertionError:
            raise AssertionError("the three lines did not reach the shell one by one; it shows:\n"
                                 + "\n".join(tab_lines()[:12])) from None
        lines = tab_lines()
        assert [line for line in lines if line.startswith("tt-")] == ["tt-1", "tt-2", "tt-3"], "\n".join(lines[:12])
    finally:
        outer.close()
