"""Where the keyboard is after the agent panel moves (prefix z), in a real terminal (tmux):
what the user types for the panel must never land in the tab, where Enter runs it."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import BASH_TAB, TIKI, wait_until
from tmux_outer import Outer, panel_at

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def in_the_panel(outer: Outer, text: str) -> None:
    """The panel has the keyboard: `text` typed shows in its input line."""
    outer.literal("w0", text)
    outer.wait("w0", text)
    shell = subprocess.run([TIKI, "terminal-read", "sh"], env=outer.env, capture_output=True, text=True).stdout
    assert text not in shell, f"typed for the panel, {text!r} went into the shell tab:\n{shell}"
    outer.keys("w0", "C-u")  # (clear the panel's line)


def test_prefix_a_shows_a_panel_that_was_hidden_while_it_had_the_keyboard(tiki_env, tmp_path):
    """Panel at the bottom, prefix a (it has the keyboard), prefix z (bottom -> hidden): the
    keys go to the tab, as they should. Then prefix a -- "move the keyboard to the agent panel":
    nothing shows; the panel stays hidden and typing goes on into the shell; only a second
    prefix a shows it. `action_toggle_focus` (app/tui/commands.py) asks `view.has_focus`, which
    is false when hiding left the focus on nothing, so it "moves the keyboard back" to the view
    it already had, and never un-hides the panel."""
    panel_at(tiki_env, "bottom")
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.keys("w0", "C-\\", "a")
        in_the_panel(outer, "first-for-the-panel")
        outer.keys("w0", "C-\\", "z")  # bottom -> hidden
        wait_until(lambda: "CHT" not in outer.screen("w0"), 10, 0.05, what="the panel to hide")
        outer.keys("w0", "C-\\", "a")
        try:
            outer.wait("w0", "CHT", timeout=10)
        except AssertionError as exc:
            raise AssertionError(f"prefix a did not bring the hidden panel back: {exc}") from None
        in_the_panel(outer, "second-for-the-panel")
    finally:
        outer.close()
