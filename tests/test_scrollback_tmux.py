"""Scrollback mode (prefix `[`) as a user drives it in a real terminal: PageUp and PageDown move
the view a page, as tmux's copy mode does, and output that arrives meanwhile (an agent still
working in the tab) neither moves what is being read nor tears it; leaving shows the live screen."""

from __future__ import annotations

import re

from conftest import wait_until
from test_attach_tmux import BASH, pytestmark, tiki  # noqa: F401
from tmux_outer import Outer


def view(screen: str) -> list[str]:
    """The tab's rows as shown (the tab bar and the agent panel left out), right-trimmed."""
    return [line.split("│")[0].rstrip() for line in screen.splitlines()[1:]]


def position(screen: str) -> tuple[int, int]:
    found = re.search(r"\[(\d+)/(\d+)\]", screen)
    assert found, screen
    return int(found.group(1)), int(found.group(2))


def test_page_keys_move_a_page_and_output_meanwhile_leaves_the_view_alone(tiki_env, tmp_path):
    workspace = tmp_path / "ws.toml"
    workspace.write_text(BASH)
    outer = Outer(tiki_env)
    try:
        outer.tiki("w0", "--workspace", str(workspace), cwd=str(tmp_path))
        outer.wait("w0", "? help")
        outer.literal("w0", "clear; seq 1 3000")
        outer.keys("w0", "Enter")
        wait_until(lambda: "3000" in view(outer.screen("w0")), 10, 0.1, what="seq")
        height = len([row for row in view(outer.screen("w0")) if row]) - 1  # (the prompt's row too)
        outer.keys("w0", "C-\\", "[")
        wait_until(lambda: re.search(r"\[0/\d{4}\]", outer.screen("w0")), 10, 0.1, what="the indicator")

        outer.keys("w0", "PageUp")
        screen = wait_until(lambda: position(s := outer.screen("w0"))[0] > 0 and s, 10, 0.1, what="a page up")
        back, _ = position(screen)
        assert back >= height - 1, f"PageUp went back {back} rows, not a page ({height}):\n{screen}"
        assert "3000" not in view(screen)
        outer.keys("w0", "PageUp")
        screen = wait_until(lambda: position(s := outer.screen("w0"))[0] > back and s, 10, 0.1, what="another page")
        assert position(screen)[0] >= 2 * back - 1
        outer.keys("w0", "PageDown")
        screen = wait_until(lambda: position(s := outer.screen("w0"))[0] < 2 * back - 1 and s, 10, 0.1,
                            what="a page down")
        reading = view(screen)

        # The tab goes on printing: what is being read stays where it is, whole.
        tiki(tiki_env, "terminal-send", "sh", "for i in 1 2 3 4 5 6 7; do echo late-$i; done")
        wait_until(lambda: "late-7" in tiki(tiki_env, "terminal-read", "sh", "--lines", "5").stdout, 10, 0.1,
                   what="the late output in the tab")
        for _ in range(5):  # (frames keep coming for a moment: look more than once)
            screen = outer.screen("w0")
            assert view(screen)[1:] == reading[1:], "\n".join(view(screen))  # (row 0 carries the indicator)
        outer.keys("w0", "q")
        wait_until(lambda: "late-7" in view(outer.screen("w0")) and not re.search(r"\[\d+/\d+\]", outer.screen("w0")),
                   10, 0.1, what="the live screen again")
    finally:
        outer.close()
