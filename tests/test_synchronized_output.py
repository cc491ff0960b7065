"""Synchronized output (DEC mode 2026): a program that brackets a redraw with `CSI ? 2026 h` and
`CSI ? 2026 l` is never shown half-way through it -- the tab's frames wait for the end of the
update (up to a limit, as terminals do) -- and a program that asks whether the mode is there
(DECRQM) is told. Claude Code asks, then draws each screen inside the brackets; without them
every frame taken in the middle of a redraw flickered half a screen into every attached UI."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ui_protocol_helpers import Session

HERE = Path(__file__).parent


def test_a_synchronized_redraw_is_never_shown_half_done_and_decrqm_says_the_mode_is_there(serve):
    host = serve(f'[[tab]]\nname = "tui"\ncommand = ["{sys.executable}", "{HERE / "synced_redraw.py"}", "12", "0.04"]\n')
    live = Session(host.env, 80, 24)
    tab = live.tabs["tui"]
    live.client.watch(tab)
    shown: list[list[str]] = []

    def look(event) -> bool:
        shown.append([live.rows.get(row, "").rstrip() for row in range(10)])
        return "; done" in live.rows.get(11, "")
    live.next("screen", 20, look)
    assert "sync answer 2; done" in live.rows[11]  # DECRQM: the mode is known, and reset now
    frames = [screen for screen in shown if any(row.startswith("frame") for row in screen)]
    assert frames, shown
    for screen in frames:  # each shown screen is one whole frame: ten rows of the same number
        numbers = {re.match(r"frame (\d+) row", row).group(1) if row.startswith("frame") else None for row in screen}
        assert len(numbers) == 1 and None not in numbers, screen
    live.client.input(tab, b"q")


def test_a_read_never_returns_half_a_synchronized_redraw(serve):
    """What `terminal-read` (the coordinator's `read_terminal`) and `--cells` return is what a
    UI would show: the screen once the program's update has ended, not half of it."""
    from tikitaka.app.client import call

    host = serve(f'[[tab]]\nname = "tui"\ncommand = ["{sys.executable}", "{HERE / "synced_redraw.py"}", "12", "0.04"]\n')
    socket = Path(host.env["TIKI_SOCKET"])
    seen: list[list[str]] = []
    while True:
        text = call("terminal.read", {"name": "tui", "lines": 40}, socket_path=socket)["text"]
        rows = [row.rstrip() for row in text.split("\n")]
        cells = call("terminal.cells", {"name": "tui"}, socket_path=socket)["cells"]
        seen += [rows, ["".join(char for char, _style in row).rstrip() for row in cells]]
        if any("; done" in row for row in rows):
            break
    # The last ten frame rows of each look: the screen's, after the whole frames before it that
    # each `CSI 2 J` scrolled into the history (as tmux's scroll-on-clear does).
    frames = [[row for row in screen if row.startswith("frame")][-10:] for screen in seen]
    frames = [rows for rows in frames if rows]
    assert len(frames) >= 10, seen  # many looks landed while frames were on screen
    for rows in frames:
        number = re.match(r"frame (\d+) row", rows[0]).group(1)
        assert rows == [f"frame {number} row {row}" for row in range(10)], rows
