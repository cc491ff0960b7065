"""Real programs in the real `tiki` binary under a real (tmux) terminal, at 140x45 and 80x24, as
issue 11's acceptance tries them: Alt+digits reach bash's readline as Meta (ESC+digit, a digit
argument: `Alt+2 x` types `xx`), and the F-keys reach htop (F1 help, F10 quit) and Midnight
Commander (F9 menu bar, then Down, which mc in application cursor mode takes only as SS3 B,
F10 quit). The outer tmux sends what a terminal sends for each key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import wait_until
from tmux_outer import Outer, pytestmark, read, tiki  # noqa: F401

pytestmark = pytestmark + [pytest.mark.skipif(not (shutil.which("htop") and shutil.which("mc")),
                                              reason="needs htop and mc (apt-get install htop mc)")]


def workspace(home: Path) -> str:
    # A private HOME: htop and mc write their settings there on exit.
    tab = '[[tab]]\nname = "{name}"\ncommand = ["env", "HOME={home}", {command}]\nrole = "shell"\n'
    return "".join(tab.format(name=name, home=home, command=command) for name, command in (
        ("sh", '"bash", "--norc", "--noprofile"'), ("htop", '"htop"'), ("mc", '"mc", "--nosubshell"')))


def running(env: dict[str, str], name: str) -> bool:
    import json
    rows = json.loads(tiki(env, "terminal-list", "--json").stdout)["terminals"]
    return next(row for row in rows if row["name"] == name)["running"]


@pytest.mark.parametrize("cols, rows", [(140, 45), (80, 24)])
def test_alt_digits_reach_bash_and_f_keys_reach_htop_and_mc(tiki_env, tmp_path, cols, rows):
    (tmp_path / "home").mkdir()
    outer = Outer(tiki_env, cols, rows)
    try:
        outer.start_ui(tmp_path / "ws.toml", workspace(tmp_path / "home"), ready=" 3 mc ")  # the UI is up: its tab bar
        wait_until(lambda: read(tiki_env, "sh").rstrip().endswith("$"), 30, 0.1, what="bash's prompt")
        outer.keys("w0", "M-2", "x", "Enter")  # readline: Meta-2 is a digit argument -> "xx"
        wait_until(lambda: "xx: command not found" in read(tiki_env, "sh"), 10, 0.1,
                   what=f"Alt+2 as Meta in bash; the tab shows {read(tiki_env, 'sh')!r}")

        outer.keys("w0", "C-\\", "2")  # htop
        wait_until(lambda: "Quit" in read(tiki_env, "htop"), 15, 0.1, what="htop's function-key bar")
        outer.keys("w0", "F1")
        wait_until(lambda: "CPU usage bar:" in read(tiki_env, "htop"), 10, 0.1, what="htop's help (F1)")
        outer.keys("w0", "q")
        wait_until(lambda: "CPU usage bar:" not in read(tiki_env, "htop", rows), 10, 0.1, what="help closed")
        outer.keys("w0", "F10")
        wait_until(lambda: not running(tiki_env, "htop"), 10, 0.1, what="htop to quit on F10")

        outer.keys("w0", "C-\\", "3")  # Midnight Commander
        wait_until(lambda: "Quit" in read(tiki_env, "mc"), 15, 0.1, what="mc's function-key bar")
        outer.keys("w0", "F9")  # the menu bar takes the keys; Down opens its first menu
        outer.keys("w0", "Down")  # the outer terminal sends CSI B; mc, in application mode, reads SS3 B
        wait_until(lambda: "File listing" in read(tiki_env, "mc"), 10, 0.1,
                   what=f"mc's Left menu (F9, Down); the tab shows {read(tiki_env, 'mc')!r}")
        outer.keys("w0", "F10")  # closes the menu
        wait_until(lambda: "File listing" not in read(tiki_env, "mc"), 10, 0.1, what="the menu closed")
        outer.keys("w0", "F10")  # quits
        wait_until(lambda: not running(tiki_env, "mc"), 10, 0.1, what="mc to quit on F10")
        assert running(tiki_env, "sh")
    finally:
        outer.close()
