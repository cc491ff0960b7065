"""A snapshot of the main screen: tab bar, terminal with colours and CJK, panel, footer."""

from __future__ import annotations

import pytest
from tui_helpers import make_app, screen_text, stop, until

FIXED = (
    '[[tab]]\nname = "demo"\ncommand = ["bash", "--norc", "--noprofile", "-c", '
    '"printf \'\\\\033[31mred\\\\033[0m \\\\033[1mbold\\\\033[0m \\\\033[38;5;45m256\\\\033[0m '
    '\\\\033[38;2;255;128;0mtruecolor\\\\033[0m 한국어 \\\\033[7mreverse\\\\033[0m\\\\n\'; '
    'stty -echo; exec sleep 600"]\n'
    '[[tab]]\nname = "Claude"\ncommand = ["sh", "-c", "echo ready; exec sleep 600"]\nrole = "peer"\n'
)


@pytest.fixture(autouse=True)
def isolated(in_tiki_env):
    return in_tiki_env


def test_main_screen_snapshot(snap_compare, tmp_path):
    app = make_app(tmp_path, FIXED, bare=True)

    async def settle(pilot):
        await until(pilot, lambda: "truecolor" in screen_text(app), what="demo output")
        # both quiet for 1.5 s: idle, as the host says, and they stay so (nothing prints again)
        await until(pilot, lambda: len(app.tabs) == 2 and all(t.agent["state"] == "idle" for t in app.tabs),
                    timeout=10, what="idle in the tab bar")
        await pilot.pause(0.3)

    try:
        assert snap_compare(app, terminal_size=(100, 24), run_before=settle)
    finally:
        stop(app)
