"""`tiki --tab NAME` / `tiki attach -t N`: the real `tiki` in tmux shows the tab named first, by
name or by its number in the tab bar; a tab that is not there is named with the ones that are."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import TIKI, wait_until
from tmux_outer import Outer, logger_tab, received

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


def test_zoom_gives_the_tab_the_whole_window_and_back(tiki_env, tmp_path):
    """Prefix + f: the tab shown fills the outer window (no tab bar, no panel) and its program
    gets that size; again, and the layout is back. Textual's own "Maximize" in the palette
    did it for whatever had the keyboard -- the panel's input line alone on a hatched screen
    -- and in the tab only the palette's "Minimize" brought it back (Esc goes to the program)."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one"), ready="I-am-one")

        asked = iter(range(1, 1000))

        def size() -> tuple[int, int]:
            mark = f"SIZE{next(asked)}="
            outer.literal("w0", f"clear; stty size | sed 's/^/{mark[:2]}''{mark[2:]}/'")  # (the line typed is not the mark)
            outer.keys("w0", "Enter")
            line = outer.wait("w0", mark).split(mark)[-1].split()
            return int(line[0]), int(line[1])

        def becomes(expected: tuple[int, int]) -> None:  # (the resize reaches the tab soon after the key)
            seen: list[tuple[int, int]] = []
            try:
                wait_until(lambda: seen.append(size()) or seen[-1] == expected, 10, 0.2, what=f"the tab at {expected}")
            except AssertionError as failed:  # (what it was instead, and what the UI shows: zoomed or not)
                raise AssertionError(f"{failed}; sizes seen {seen[-3:]}; the screen:\n{outer.screen('w0')}") from None

        rows, cols = size()
        assert rows < 45 and cols < 140  # the tab bar above, the panel at the right
        outer.keys("w0", "C-\\", "f")
        becomes((45, 140))
        assert "? help" not in outer.screen("w0")  # no tab bar
        outer.keys("w0", "C-\\", "f")
        becomes((rows, cols))
        outer.wait("w0", "? help")
        outer.keys("w0", "C-\\", "f")
        becomes((45, 140))
        outer.keys("w0", "C-\\", "a")  # the panel, wanted while zoomed: the layout comes back for it
        outer.wait("w0", "? help")
        outer.literal("w0", "typed-into-the-panel")
        screen = outer.wait("w0", "typed-into-the-panel")
        assert "=typed" not in screen
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
        outer.close()


def test_escape_in_a_zoomed_tab_goes_to_its_program(tiki_env, tmp_path):
    """Zoomed, Esc is the program's (vim's, an AI CLI's "interrupt") as ever: Textual would
    take it to undo the zoom."""
    log = tmp_path / "keys.jsonl"
    outer = Outer(tiki_env, cols=100, rows=30)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(log), ready="logger ready")
        outer.keys("w0", "C-\\", "f")
        wait_until(lambda: "? help" not in outer.screen("w0"), 10, 0.05, what="zoomed: no tab bar")
        outer.keys("w0", "Escape")
        outer.literal("w0", "x")
        wait_until(lambda: received(log) == "\x1bx", 10, 0.05, what=f"Esc and x in the tab; got {received(log)!r}")
        assert "? help" not in outer.screen("w0")  # still zoomed
    finally:
        outer.close()


def test_a_toast_over_a_zoomed_tab_goes_when_its_time_is_up(tiki_env, tmp_path):
    """Zoomed, a toast (the palette's screenshot says where it saved) stayed on the screen for
    good: Textual drew it, but not its going."""
    outer = Outer(tiki_env, cols=100, rows=30)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one"), ready="I-am-one", cwd=tmp_path)
        outer.keys("w0", "C-\\", "f")
        wait_until(lambda: "? help" not in outer.screen("w0"), 10, 0.05, what="zoomed: no tab bar")
        outer.keys("w0", "C-\\", ":")
        outer.wait("w0", "Search for commands")
        outer.literal("w0", "screenshot")
        outer.wait("w0", "save the screen as SVG")  # (searched: Enter before that runs the first command)
        outer.keys("w0", "Enter")
        outer.wait("w0", "tikitaka-")  # the toast names the file
        wait_until(lambda: "tikitaka-" not in outer.screen("w0"), 15, 0.2, what="the toast gone after its 5 s")
        assert "I-am-one" in outer.screen("w0")
        outer.keys("w0", "C-\\", "f")  # a toast up before the zoom goes too
        outer.wait("w0", "? help")
        outer.keys("w0", "C-\\", ":")
        outer.wait("w0", "Search for commands")
        outer.literal("w0", "screenshot")
        outer.wait("w0", "save the screen as SVG")  # (searched: Enter before that runs the first command)
        outer.keys("w0", "Enter")
        outer.wait("w0", "tikitaka-")
        outer.keys("w0", "C-\\", "f")
        wait_until(lambda: "? help" not in outer.screen("w0"), 10, 0.05, what="zoomed again")
        wait_until(lambda: "tikitaka-" not in outer.screen("w0"), 15, 0.2, what="that toast gone too")
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
        outer.close()


def test_prefix_l_goes_back_to_the_tab_shown_before(tiki_env, tmp_path):
    """tmux's `last-window` (prefix l), for the two agents a user goes between: the tab shown
    last before this one, and again to come back. Each UI keeps its own (two UIs may show
    different tabs); a tab since closed is skipped (the UI stays, and says so)."""
    def tab(name: str) -> str:
        command = json.dumps(["bash", "--norc", "--noprofile", "-c", f"clear; echo I-am-{name}; exec sleep 1000"])
        return f'[[tab]]\nname = "{name}"\ncommand = {command}\n'

    def shows(name: str) -> None:
        outer.wait("w0", f"I-am-{name}")
        wait_until(lambda: [n for n in "abc" if f"I-am-{n}" in outer.screen("w0")] == [name], 10, 0.05,
                   what=f"tab {name} alone on the screen")

    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("a") + tab("b") + tab("c"), ready="I-am-a")
        outer.keys("w0", "C-\\", "3")
        shows("c")
        outer.keys("w0", "C-\\", "l")
        shows("a")
        outer.keys("w0", "C-\\", "l")
        shows("c")
        outer.keys("w0", "C-\\", "2")
        shows("b")
        outer.keys("w0", "C-\\", "l")
        shows("c")
        assert subprocess.run([TIKI, "terminal-close", "b"], env=tiki_env, capture_output=True).returncode == 0
        # the UI learns of the close from the host's tab list; a key pressed before it arrives
        # still names b (and the host says b is gone), so wait for the bar to drop it
        wait_until(lambda: "2 c" in outer.screen("w0").splitlines()[0], 10, 0.05, what="the bar without b")
        outer.keys("w0", "C-\\", "l")
        outer.wait("w0", "the tab shown before this one was closed")
        shows("c")
    finally:
        outer.close()
