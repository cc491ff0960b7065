"""The real `tiki` binary under tmux in a 140x45 pane, driven from the keyboard alone."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid

import pytest

from conftest import TIKI, wait_until

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

WORKSPACE = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n[[tab]]\nname = "py"\ncommand = ["python3", "-q"]\n'


class Pane:
    def __init__(self, env: dict[str, str], workspace: str) -> None:
        self.server = f"tikitest{uuid.uuid4().hex[:6]}"
        exports = " ".join(f"{k}='{v}'" for k, v in env.items() if k.startswith(("TIKI_", "OLLAMA")))
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", "140", "-y", "45",
                  f"env -u COLUMNS -u LINES {exports} PS1='$ ' {TIKI} --workspace {workspace}; sleep 60")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.server, *args], capture_output=True, text=True).stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p")

    def wait(self, needle: str, timeout: float = 20) -> str:
        return wait_until(lambda: needle in (s := self.screen()) and s, timeout, 0.1, what=f"{needle!r} on screen")

    def close(self) -> None:
        self.tmux("kill-server")


def test_tiki_tui_under_tmux(tiki_env, tmp_path):
    workspace = tmp_path / "ws.toml"
    workspace.write_text(WORKSPACE)
    pane = Pane(tiki_env, str(workspace))
    try:
        try:
            screen = pane.wait("f10 quit")
        except AssertionError:
            raise AssertionError(f"TUI did not come up; screen:\n{pane.screen()}") from None
        assert " 1 sh " in screen and " 2 py " in screen  # tab names visible
        pane.keys("echo tui-$((1+1))", "Enter")
        pane.wait("\ntui-2")
        subprocess.run([TIKI, "terminal-send", "sh", "echo from-outside-$((2*3))"], env=tiki_env, check=True)
        pane.wait("from-outside-6")
        subprocess.run([TIKI, "bot-chat", "hello", "--from", "tester"], env=tiki_env, check=True)
        pane.wait("[tester] hello")
        pane.keys("F7")  # next tab: the python REPL
        time.sleep(0.5)
        pane.keys("print(6*7)", "Enter")
        wait_until(lambda: any(line.split("│")[0].strip() == "42" for line in pane.screen().splitlines()),
                   20, 0.1, what="42")
        pane.keys("F2")  # the agent panel, CHT mode: the line goes to the active tab
        pane.keys('print("cht-" + "ok")', "Enter")
        pane.wait("cht-ok")
        pane.keys("BTab")  # KEY mode: keys go straight to the tab
        pane.wait(" KEY ")
        pane.keys("1", "+", "1", "Enter")
        wait_until(lambda: any(line.split("│")[0].strip() == "2" for line in pane.screen().splitlines()),
                   20, 0.1, what="1+1 evaluated")
        pane.keys("F10")
        pane.wait("Quit tikitaka?")
        pane.keys("y")
        wait_until(lambda: "f10 quit" not in pane.screen(), 15, 0.1, what="the TUI to exit")
        wait_until(lambda: subprocess.run([TIKI, "terminal-list"], env=tiki_env).returncode == 3, 10,
                   what="the host to be gone")
    finally:
        pane.close()
