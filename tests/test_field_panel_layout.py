"""The agent panel's log in a real terminal (tmux) while it is hidden, docked elsewhere or
resized: what it wrote meanwhile must read normally once it shows again."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import BASH_TAB, TIKI, wait_until
from fake_ollama import Reply
from tmux_outer import Outer, panel_at

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def panel_text(outer: Outer, left: int) -> str:
    """What the right-docked panel shows: the columns right of the terminal view."""
    return "\n".join(line[left:] for line in outer.screen("w0").splitlines())


def test_a_tool_card_that_arrives_while_the_panel_is_hidden_shows_once_it_is_shown(fake_env, fake, tmp_path):
    """Panel shown, then hidden with prefix z (right -> bottom -> hidden); a run meanwhile
    calls `list_terminals`; prefix z shows the panel again: the run's request and answer read
    fine, but its tool card is an empty box (`╭╮` over `╰╯`), its arguments and result gone.
    (With the panel hidden from the start the card is readable but shows above the request it
    belongs to.) agent_panel.py writes tool cards with `log_widget.write` directly, past
    `write`, which keeps lines for a hidden panel until it has a width again (`_unshown`), so
    the card was laid out 0 columns wide, and ahead of the lines kept."""
    fake.script(Reply.action("list_terminals"), Reply.action("done", message="card-run-finished"))
    outer = Outer(fake_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.keys("w0", "C-\\", "z")  # right -> bottom
        outer.keys("w0", "C-\\", "z")  # bottom -> hidden
        wait_until(lambda: "CHT" not in outer.screen("w0"), 10, 0.05, what="the panel to hide")
        ask = subprocess.run([TIKI, "ask", "-q", "which tabs are open"], env=fake_env, capture_output=True,
                             text=True, timeout=60)
        assert ask.returncode == 0 and "card-run-finished" in ask.stdout, ask.stderr
        outer.keys("w0", "C-\\", "z")  # hidden -> right
        outer.wait("w0", "card-run-finished")  # the run's end, kept while hidden, is shown
        screen = outer.settled("w0")
        assert '"terminals"' in screen, "the tool card written while the panel was hidden is empty:\n" + screen
        assert screen.index("which tabs") < screen.index('"terminals"'), (
            "the tool card shows above the request it belongs to:\n" + screen)
    finally:
        outer.close()


def test_lines_written_with_the_panel_at_the_bottom_wrap_when_it_docks_right(tiki_env, tmp_path):
    """Panel at the bottom (full width), a peer's message of about 110 characters: one line.
    Prefix z twice (bottom -> hidden -> right): the message is cut at the panel's right edge
    behind a horizontal scrollbar, its end unreadable; old tool cards likewise lose their
    right border. The log (a RichLog, agent_panel.py) lays lines out once, at the width it
    had when they were written, and never again when the panel's width changes (prefix z, or
    the window resized across 120 columns)."""
    panel_at(tiki_env, "bottom")
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        message = "a long note from a peer " + "lorem ipsum dolor " * 4 + "THE-END-WORD"
        sent = subprocess.run([TIKI, "bot-chat", message, "--from", "Tester"], env=tiki_env, capture_output=True,
                              text=True, timeout=30)
        assert sent.returncode == 0, sent.stderr
        outer.wait("w0", "THE-END-WORD")  # at the bottom: one line, whole
        outer.keys("w0", "C-\\", "z")  # bottom -> hidden
        wait_until(lambda: "THE-END-WORD" not in outer.screen("w0"), 10, 0.05, what="the panel to hide")
        outer.keys("w0", "C-\\", "z")  # hidden -> right
        wait_until(lambda: "[Tester]" in outer.screen("w0"), 10, 0.05, what="the panel on the right")
        screen = outer.settled("w0")
        assert "THE-END-WORD" in screen, "the message's end is cut off in the right-docked panel:\n" + screen
    finally:
        outer.close()


def test_the_status_line_shows_the_generation_figures_in_a_right_docked_panel(fake_env, fake, tmp_path):
    """Docked right (45 columns), the status line was cut at one row: `turn 1 · generating 19
    tok · 0.6` -- the rate and the seconds, what tells a slow model from a stuck one, never
    showed."""
    fake.script(Reply(chunks=['{"tool": "done", '] + ['"args": {"message": "slow-run-over"}}'], delay=3.0),
                Reply.action("done", message="second"))
    outer = Outer(fake_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.ai_mode()
        outer.literal("w0", "go slowly")
        outer.keys("w0", "Enter")
        outer.wait("w0", "generating")
        wait_until(lambda: "tok/s" in panel_text(outer, 90), 10, 0.05,
                   what=f"the rate in the status line:\n{panel_text(outer, 90)}")
        outer.wait("w0", "slow-run-over")
    finally:
        outer.close()


def test_a_short_terminal_gives_the_tab_the_height_and_prefix_a_still_opens_the_panel(tiki_env, tmp_path):
    """In a 60x14 terminal (a tmux split, a small laptop window) the panel docked at the bottom
    kept its 7 rows and the tab got 6 -- the shell's last lines scrolled off while the panel
    showed nothing. Below SHORT rows the panel hides and the tab has every row but the tab
    bar's; prefix a still opens it to type into (and back hides it again); once the terminal
    is tall enough it is back where it was."""
    outer = Outer(tiki_env, cols=60, rows=14)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB, ready="? help")
        outer.literal("w0", "for i in $(seq 1 20); do echo line-$i; done; stty size")
        outer.keys("w0", "Enter")
        screen = outer.wait("w0", "13 60")  # the tab's size: all 14 rows but the tab bar
        assert "CHT" not in screen and "line-11" in screen, screen
        outer.keys("w0", "C-\\", "a")  # the panel, to type into
        outer.wait("w0", "CHT")
        outer.keys("w0", "C-\\", "a")  # back to the tab: the panel hides again
        wait_until(lambda: "CHT" not in outer.screen("w0"), 10, 0.05, what="the panel hidden again")
        outer.keys("w0", "C-\\", "z")  # (right -> bottom: nothing to see) says why
        outer.wait("w0", "too short")
        outer.tmux("resize-window", "-t", "w0", "-x", "60", "-y", "30")  # tall enough: the panel is back
        outer.wait("w0", "CHT")
        outer.literal("w0", "stty size")
        outer.keys("w0", "Enter")
        outer.wait("w0", f"\n{30 - 1 - 10} 60")  # the bottom panel's rows (35% of 30: 10) off the tab's
    finally:
        outer.close()
