"""A tab whose program ended, as the user sees it in a real terminal: its last screen, and over
it what happened and how to restart it -- without hiding the program's last words."""

from __future__ import annotations

import json
import subprocess

from conftest import TIKI
from tmux_outer import (
    Outer,
    pytestmark,  # noqa: F401
)

BANNER = "exited (code 1) — Ctrl+\\ r to restart"


def tab(name: str, script: str) -> str:
    return f'[[tab]]\nname = "{name}"\ncommand = {json.dumps(["bash", "--norc", "--noprofile", "-c", script])}\n'


def host_text(env: dict[str, str]) -> str:
    read = subprocess.run([TIKI, "terminal-read", "middle"], env=env, capture_output=True, text=True, timeout=30)
    return read.stdout + read.stderr


def view(screen: str) -> list[str]:
    """The tab's rows as shown (the tab bar and the agent panel left out), right-trimmed."""
    return [line.split("│")[0].rstrip() for line in screen.splitlines()[1:]]


def test_the_exit_banner_leaves_the_programs_last_words_in_sight(tiki_env, tmp_path):
    """The banner was drawn over the middle row, whatever was there: Claude Code started
    offline printed "Failed to connect to api.anthropic.com: ..." right there, and the user saw
    "Failed to conne exited (code 1) — ...". It goes on the row after the last text now; on a
    screen full to the bottom the rows move up one to make room for it, as tmux's dead pane
    does (`remain-on-exit`), so no row the program wrote is covered."""
    # The outer window is 45 rows: the tab bar and 44 rows of tab, whose middle is row 22.
    middle = "for i in $(seq -w 1 22); do echo row-$i; done; echo 'fatal: the reason it died'; exit 1"
    full = "for i in $(seq -w 1 60); do echo row-$i; done; printf 'fatal: on the last row'; exit 1"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("middle", middle) + tab("full", full), ready="exited (code 1)")
        rows = view(outer.settled("w0"))
        # (CI run 82, once in ~40 runs: the UI showed the banner on a blank tab; what the host
        # read then says which side lost the rows -- not reproduced in 70 tries since)
        assert rows[22] == "fatal: the reason it died", "\n".join(rows) + "\n-- the host reads:\n" + host_text(tiki_env)
        assert BANNER in rows[23] and rows[:22] == [f"row-{i:02d}" for i in range(1, 23)], "\n".join(rows)

        outer.keys("w0", "C-\\", "2")
        outer.wait("w0", "fatal: on the last row")
        rows = view(outer.settled("w0"))
        height = len(rows)
        assert BANNER in rows[-1], "\n".join(rows)
        assert rows[-2] == "fatal: on the last row", "\n".join(rows)
        # (the screen held rows 18-60 and the last one; the top one moved out of sight)
        assert rows[:-2] == [f"row-{i:02d}" for i in range(60 - height + 3, 61)], "\n".join(rows)
    finally:
        outer.close()
