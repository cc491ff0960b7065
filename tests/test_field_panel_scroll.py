"""Reading back the agent panel's log from the keyboard, in a real terminal (tmux)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import BASH_TAB, TIKI, wait_until
from ipc_helpers import request
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def test_page_up_in_the_panel_scrolls_its_log_back(tiki_env, tmp_path):
    """Eighty peer messages (or one run's tool cards: about 15 rows each) push the start of
    the log out of the panel. With the panel holding the keyboard (prefix a), PageUp -- or
    any key -- does nothing: the log (a RichLog, app/tui/agent_panel.py) cannot take the focus
    and the input line has no binding that scrolls it, so in this keyboard-driven UI an answer
    or a tool card that scrolled off can only be read back with a mouse wheel."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        sent = subprocess.run([TIKI, "bot-chat", "note-001 from the bulk sender", "--from", "Bulk"],
                              env=tiki_env, capture_output=True, text=True, timeout=30)
        assert sent.returncode == 0, sent.stderr
        for n in range(2, 81):  # (the rest as the CLI sends them, from here: a process each took 8 s)
            reply = request(tiki_env, "bot.chat", **{"message": f"note-{n:03d} from the bulk sender", "from": "Bulk"})
            assert reply is not None and reply["ok"], reply
        outer.wait("w0", "note-080")
        assert "note-001" not in outer.screen("w0")  # scrolled out of the panel
        outer.keys("w0", "C-\\", "a")
        outer.wait("w0", "CHT: type into the active tab")

        def scrolled_back() -> bool:
            if "note-001" in outer.screen("w0"):
                return True
            outer.keys("w0", "PageUp")
            return False
        try:
            wait_until(scrolled_back, 10, 0.2, what="note-001 after PageUp")
        except AssertionError:
            raise AssertionError("PageUp in the panel never scrolled its log back to the first note; the screen:\n"
                                 + outer.screen("w0")) from None
        shell = subprocess.run([TIKI, "terminal-read", "sh"], env=tiki_env, capture_output=True, text=True).stdout
        assert "~" not in shell  # (PageUp went to the panel, not as ESC [ 5 ~ into the shell)
    finally:
        outer.close()
