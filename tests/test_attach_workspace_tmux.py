"""`tiki` where a host already runs another workspace: the real `tiki` in tmux attaches to that
host all the same, and its panel says which workspace it shows and that the one this `tiki`
would have started (`--workspace FILE`, or ./tiki.toml) was not loaded. A line printed before
the UI took the screen went unseen until it left."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import TIKI, wait_until
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def tab(name: str) -> str:
    return f'[[tab]]\nname = "{name}"\ncommand = ["bash", "--norc", "--noprofile"]\n'


def panel_text(screen: str) -> str:
    """The agent panel's text, squashed: it wraps anywhere (a long path mid-word)."""
    return re.sub(r"\s+", "", "".join(line.partition("│")[2] for line in screen.splitlines()))


def test_a_workspace_the_running_host_does_not_serve_is_named_in_the_panel(tiki_env, tmp_path: Path) -> None:
    served, other, project = tmp_path / "team.toml", tmp_path / "other.toml", tmp_path / "project"
    other.write_text(tab("beta"))
    project.mkdir()
    (project / "tiki.toml").write_text(tab("gamma"))
    sockets = Path(tiki_env["TIKI_SOCKET"]).parent
    outer = Outer(tiki_env)
    try:
        screen = outer.start_ui(served, tab("alpha"))
        assert "not loaded" not in panel_text(screen), screen

        for window, args, cwd, how, beside in (
                ("w1", ("--workspace", str(other)), tmp_path, f"--workspace{other}",
                 f"TIKI_SOCKET={sockets / 'other.sock'}tiki--workspace{other}`"),
                ("w2", (), project, f"thisfolder's{project / 'tiki.toml'}", f"TIKI_SOCKET={sockets / 'project.sock'}tiki`")):
            outer.window(window)
            outer.tiki(window, *args, cwd=str(cwd))
            outer.wait(window, "? help")
            screen = wait_until(lambda: "wasnotloaded" in panel_text(s := outer.screen(window)) and s, 10, 0.1,
                                what=f"the panel of {window} to say what was not loaded")
            assert " 1 alpha " in screen and "beta" not in screen.splitlines()[0], screen
            said = panel_text(screen)
            for part in (f"serving{served}", f"{how}wasnotloaded", "`tikishutdown`stopsthathostanditstabs", beside):
                assert part in said, screen

        # The advice followed: a second host beside the first, with the folder's tabs.
        outer.window("w4")
        outer.tiki("w4", cwd=str(project), via=f"env TIKI_SOCKET={sockets / 'project.sock'}")
        screen = outer.wait("w4", "? help")
        assert " 1 gamma " in screen and "notloaded" not in panel_text(outer.settled("w4")), screen
        outer.window("w5")
        outer.tiki("w5", "terminal-list")
        assert "alpha" in outer.wait("w5", "TIKI-EXIT=0")  # (the first host, untouched)

        # The workspace it serves, asked for again (from its folder, as a path of its own): nothing to say.
        outer.window("w3")
        outer.tiki("w3", "--workspace", "team.toml", cwd=str(tmp_path))
        outer.wait("w3", "? help")
        screen = outer.settled("w3")
        outer.keys("w3", "C-\\", "d")
        outer.wait("w3", "TIKI-EXIT=0")
        assert "not loaded" not in outer.screen("w3") and "notloaded" not in panel_text(screen), screen
    finally:
        outer.close()
        subprocess.run([TIKI, "shutdown"], env=dict(tiki_env, TIKI_SOCKET=str(sockets / "project.sock")),
                       capture_output=True, timeout=60)
