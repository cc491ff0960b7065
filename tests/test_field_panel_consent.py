"""The coordinator's consent question in a real terminal (tmux), answered with the keyboard."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import BASH_TAB, TIKI, wait_until
from fake_ollama import Reply
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def test_enter_on_the_consent_question_does_not_run_the_command(fake_env, fake, tmp_path):
    """AI mode, a request; the model wants to type `echo consent-got-enter` into the shell
    tab and the UI asks. The question pops up over the panel while the user types: the Enter
    that ends their line (or any Enter) answers "Allow once" -- the focused button -- and the
    command runs. The quit and close questions default to Cancel; this one, about running a
    command a small model chose, defaults to yes, and has no y/n keys either
    (app/tui/dialogs.py `ConsentScreen`: the first button, "Allow once", takes the focus). Fixed
    as the quit question is (Deny focused), Enter closes it and nothing runs."""
    fake.script(Reply.action("send_to_terminal", tab="sh", text="echo consent-got-enter"),
                Reply.action("done", message="consent-run-over"))
    outer = Outer(fake_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.ai_mode()
        outer.literal("w0", "tidy up the shell")
        outer.keys("w0", "Enter")
        outer.wait("w0", "The coordinator wants to")
        outer.keys("w0", "Enter")  # meant for the panel's next line, or a reflex
        wait_until(lambda: "The coordinator wants to" not in outer.screen("w0"), 10, 0.05, what="the question to close")
        outer.keys("w0", "Escape")  # (should it still be open in another form: no)
        outer.wait("w0", "consent-run-over")
        shell = subprocess.run([TIKI, "terminal-read", "sh"], env=fake_env, capture_output=True, text=True).stdout
        assert "echo consent-got-enter" not in shell, "Enter on the consent question ran the command:\n" + shell
    finally:
        outer.close()


def test_the_arrows_move_along_the_consent_buttons_in_a_real_terminal(fake_env, fake, tmp_path):
    """Left, Left from Deny is "Allow once", as the keys a terminal sends for the arrows (they
    did nothing: Left Left Enter denied), and Enter then allows: the command runs."""
    fake.script(Reply.action("send_to_terminal", tab="sh", text="echo allowed-$((40+2))"),
                Reply.action("done", message="arrow-run-over"))
    outer = Outer(fake_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.ai_mode()
        outer.literal("w0", "say it in the shell")
        outer.keys("w0", "Enter")
        outer.wait("w0", "type into shell tab 'sh' and press Enter")
        outer.keys("w0", "Left", "Left", "Enter")
        outer.wait("w0", "arrow-run-over")
        shell = subprocess.run([TIKI, "terminal-read", "sh"], env=fake_env, capture_output=True, text=True).stdout
        assert "allowed-42" in shell, "Left Left Enter did not allow the command:\n" + shell
    finally:
        outer.close()
