"""The agent panel across a detach, in a real terminal (tmux): what it said before is there
when `tiki` attaches again."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import BASH_TAB, TIKI
from fake_ollama import Reply
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def test_the_panel_shows_the_answer_and_messages_from_before_a_detach(fake_env, fake, tmp_path):
    """Ask the coordinator in the panel, get the answer, a peer's message comes; detach with
    the prefix (or lose the terminal) and run `tiki` again: the panel was empty -- the answer
    the user had asked for was gone, though the host had it. Now it is there again, set apart
    as from before this UI attached, and a run asked from the CLI while no UI was attached
    shows too."""
    fake.script(Reply.action("done", message="answer-before-the-detach"),
                Reply.action("done", message="answer-while-detached"))
    outer = Outer(fake_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.ai_mode()
        outer.literal("w0", "what is the plan")
        outer.keys("w0", "Enter")
        outer.wait("w0", "answer-before-the-detach")
        sent = subprocess.run([TIKI, "bot-chat", "peer-note-before", "--from", "Tester"], env=fake_env,
                              capture_output=True, text=True, timeout=30)
        assert sent.returncode == 0, sent.stderr
        outer.wait("w0", "peer-note-before")
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        ask = subprocess.run([TIKI, "ask", "-q", "and now?"], env=fake_env, capture_output=True, text=True, timeout=60)
        assert ask.returncode == 0 and "answer-while-detached" in ask.stdout, ask.stderr
        outer.clear("w0")
        outer.tiki("w0")
        outer.wait("w0", "? help")
        screen = outer.wait("w0", "answer-while-detached", timeout=10)
        assert "before this UI attached" in screen, screen
        order = [screen.find(text) for text in ("what is the plan", "answer-before-the-detach", "peer-note-before",
                                                "and now?", "answer-while-detached")]
        assert -1 not in order and order == sorted(order), (order, screen)
    finally:
        outer.close()
