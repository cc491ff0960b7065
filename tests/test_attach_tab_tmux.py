"""`tiki --tab NAME` / `tiki attach -t N`: the real `tiki` in tmux shows the tab named first, by
name or by its number in the tab bar; a tab that is not there is named with the ones that are."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import TIKI
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def tab(name: str) -> str:
    return (f'[[tab]]\nname = "{name}"\n'
            f'command = ["bash", "--norc", "--noprofile", "-c", "echo I-am-{name}; exec bash --norc --noprofile"]\n')


def test_tiki_shows_the_tab_asked_for_first(tiki_env, tmp_path):
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one") + tab("Two") + tab("three"), ready="I-am-one")
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        for asked, shown in (("two", "I-am-Two"), ("3", "I-am-three"), ("ONE", "I-am-one")):
            outer.clear("w0")
            outer.tiki("w0", "attach", "-t", asked) if asked.isdigit() else outer.tiki("w0", "--tab", asked)
            screen = outer.wait("w0", shown)
            assert not [other for other in ("I-am-one", "I-am-Two", "I-am-three") if other != shown and other in screen]
            outer.keys("w0", "C-\\", "d")
            outer.wait("w0", "TIKI-EXIT=0")
        outer.clear("w0")
        outer.tiki("w0", "--tab", "four")
        screen = outer.wait("w0", "TIKI-EXIT=2").replace("\n", "")
        assert "no tab 'four'; the tabs are 1: one, 2: Two, 3: three" in screen
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
        outer.close()


def test_closing_the_shown_tab_shows_its_neighbour(tiki_env, tmp_path):
    """The tab a UI shows is closed (from anywhere): the UI goes to the tab that took its place
    in the bar, as closing a browser tab does -- not back to the first tab."""
    def tab(name: str) -> str:
        command = json.dumps(["bash", "--norc", "--noprofile", "-c", f"echo I-am-{name}; exec sleep 1000"])
        return f'[[tab]]\nname = "{name}"\ncommand = {command}\n'

    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("a") + tab("b") + tab("c"), ready="I-am-a")
        outer.keys("w0", "C-\\", "2")
        outer.wait("w0", "I-am-b")
        assert subprocess.run([TIKI, "terminal-close", "b"], env=tiki_env, capture_output=True).returncode == 0
        outer.wait("w0", "I-am-c")
    finally:
        outer.close()
