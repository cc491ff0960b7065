"""Screens identical to tmux's (issue 11), the fast subset: vim, less, python's REPL, vttest,
dialog's boxes, Codex CLI's sign-in menu and Claude Code's offline start screen run in a tikitaka tab and in a
tmux pane of the same size, driven with the same keys through `tiki terminal-key` /
`terminal-send --literal`, compared cell by cell (characters and the attributes tmux's capture
shows). Every screen must be 99% identical or better. A program that is not installed is
skipped, saying so (`.ci/run` installs the two agent CLIs from npm).
bench/fidelity.py runs every screen (htop, nano, tig, man and more too) and prints the table in bench/README.md.

Two vttest screens differ from tmux because tmux 3.3a itself gets them wrong (vttest says on
the screen what it should show); for those, the tests check what vttest asks for instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import fidelity_scenarios as scenarios
import pytest
from fidelity import Pair

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (the reference)")
IDLE_TAB = '[[tab]]\nname = "idle"\ncommand = ["sleep", "100000"]\n'


@pytest.fixture
def pair(serve, tiki_env, tmp_path):
    env = scenarios.environment(tmp_path / "home", tiki_env)
    config = Path(env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("[terminal]\ncols = 80\nrows = 24\n")
    host = serve(IDLE_TAB, env=env)
    both = Pair(host.run, env, tmp_path, 80, 24)
    both.workdir = tmp_path / "home"
    yield both
    both.close()


@pytest.mark.parametrize("scenario", scenarios.FAST, ids=lambda s: s.name)
def test_screens_match_tmux(pair, scenario):
    if not scenario.available():
        pytest.skip(f"needs {scenario.needs or scenario.argv[0]}")
    scores = scenarios.run(pair, scenario, pair.workdir)
    assert scores
    for score in scores:
        assert score.full >= 0.99, score.report()


def left_right_margins(rows: list[str]) -> tuple[str, str]:
    lines = [row for row in rows[2:20]]
    return "".join(line[:1] for line in lines), "".join(line[79:80] for line in lines)


@pytest.mark.skipif(shutil.which("vttest") is None, reason="needs vttest")
def test_vttest_autowrap_and_origin_mode_show_what_vttest_asks_for(pair):
    pair.start("vttest", ["vttest"], pair.workdir)
    pair.wait_for("Choose test type")
    pair.type("1")
    pair.key("enter", "enter", "enter")  # the third screen: autowrap mixed with control characters
    pair.wait_for("should have letters in order")
    ours = pair.rows_of_ours()
    assert left_right_margins(ours) == ("IJKLMNOPQRSTUVWXYZ", "ijklmnopqrstuvwxyz")
    pair.key("enter", "enter", "enter", "enter")  # back to the menu
    pair.wait_for("Choose test type")
    pair.type("2")
    pair.key("enter")
    for _ in range(10):  # the eleventh screen of menu 2: origin mode
        pair.key("enter")
    pair.wait_for("Origin mode test")
    ours = pair.rows_of_ours()
    assert ours[23].startswith("Origin mode test. This line should be at the bottom of the screen.")
