"""Scrollback mode (prefix `[`) as a user drives it in a real terminal: PageUp and PageDown move
the view a page, as tmux's copy mode does, and output that arrives meanwhile (an agent still
working in the tab) neither moves what is being read nor tears it; leaving shows the live screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import wait_until
from tmux_outer import BASH, Outer, pytestmark, tiki  # noqa: F401


def view(screen: str) -> list[str]:
    """The tab's rows as shown (the tab bar and the agent panel left out), right-trimmed."""
    return [line.split("│")[0].rstrip() for line in screen.splitlines()[1:]]


def position(screen: str) -> tuple[int, int]:
    found = re.search(r"\[(\d+)/(\d+)\]", screen)
    assert found, screen
    return int(found.group(1)), int(found.group(2))


def after_seq(tiki_env: dict[str, str], tmp_path, last: int, scrollback: int | None = None) -> Outer:
    """A UI in an outer terminal, its bash tab having printed `seq 1 LAST` on a clear screen
    (keeping `scrollback` lines of history, when given)."""
    if scrollback is not None:
        config = Path(tiki_env["TIKI_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text(f"[terminal]\nscrollback = {scrollback}\n")
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.literal("w0", f"clear; seq 1 {last}")
        outer.keys("w0", "Enter")
        wait_until(lambda: str(last) in view(outer.screen("w0")), 10, 0.1, what="seq")
    except BaseException:
        outer.close()
        raise
    return outer


def test_page_keys_move_a_page_and_output_meanwhile_leaves_the_view_alone(tiki_env, tmp_path):
    outer = after_seq(tiki_env, tmp_path, 3000)
    try:
        height = len([row for row in view(outer.screen("w0")) if row]) - 1  # (the prompt's row too)
        outer.keys("w0", "C-\\", "[")
        wait_until(lambda: re.search(r"\[0/\d{4}\]", outer.screen("w0")), 10, 0.1, what="the indicator")

        # (Each look at the moved view waits until it has settled: tmux 3.3 takes a repaint in
        # pieces, and a look between two of them sees rows of both pages.)
        outer.keys("w0", "PageUp")
        wait_until(lambda: position(outer.screen("w0"))[0] > 0, 10, 0.1, what="a page up")
        screen = outer.settled("w0")
        back, _ = position(screen)
        assert back >= height - 1, f"PageUp went back {back} rows, not a page ({height}):\n{screen}"
        assert "3000" not in view(screen)
        outer.keys("w0", "PageUp")
        wait_until(lambda: position(outer.screen("w0"))[0] > back, 10, 0.1, what="another page")
        assert position(outer.settled("w0"))[0] >= 2 * back - 1
        outer.keys("w0", "PageDown")
        wait_until(lambda: position(outer.screen("w0"))[0] < 2 * back - 1, 10, 0.1, what="a page down")
        reading = view(outer.settled("w0"))

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


@pytest.mark.parametrize(("last", "scrollback"), [(300, None), (3000, 1100)], ids=["history growing", "history full"])
def test_a_view_scrolled_with_the_wheel_stays_on_its_lines_while_output_comes(tiki_env, tmp_path, last, scrollback):
    """Scrolled back with the wheel, the view keeps showing the lines it showed while the tab
    prints more, as tmux anchors its copy mode: the next wheel step moves three rows from
    there. (It used to jump by every line printed meanwhile: the offset counted from a screen
    that had moved on; and once the history was full, its length stopped growing and the
    view could no longer tell how far its lines had moved.)"""
    from test_mouse_tmux import sgr

    outer = after_seq(tiki_env, tmp_path, last, scrollback)
    try:
        top = lambda: int(view(outer.screen("w0"))[0])  # noqa: E731 - the number on the view's first row
        before = top()
        for _ in range(2):  # the wheel up, twice: 6 rows back
            sgr(outer, "w0", 64, 10, 10)
        wait_until(lambda: view(outer.screen("w0"))[0].isdigit() and top() == before - 6, 10, 0.1,
                   what=f"six rows back from {before}")
        tiki(tiki_env, "terminal-send", "sh", "seq 1001 1040")
        wait_until(lambda: "1040" in tiki(tiki_env, "terminal-read", "sh", "--lines", "5").stdout, 10, 0.1,
                   what="the new lines in the tab")
        rows = view(outer.settled("w0"))
        assert int(rows[0]) == before - 6 and rows[1:6] == [str(n) for n in range(before - 5, before)], "\n".join(rows)
        sgr(outer, "w0", 64, 10, 10)  # one step more: three rows on from where the view was
        wait_until(lambda: top() != before - 6, 10, 0.1, what="the step")
        assert top() == before - 9, "\n".join(view(outer.screen("w0"))[:3])
    finally:
        outer.close()


@pytest.mark.parametrize("printer", [
    "for i in $(seq 3001 99999); do echo $i; sleep 0.002; done",  # an agent at work
    "i=3001; while :; do echo $i; i=$((i+1)); done",  # a flood: the history turns over in milliseconds
], ids=["steady", "flood"])
def test_scrollback_mode_entered_while_a_full_history_moves_shows_it_whole(tiki_env, tmp_path, printer):
    """The tab keeps printing into a full history while scrollback mode takes it: the rows
    shown run on without a gap or a repeat, through the history and into the screen. (Pages
    asked for one by one, by their offset from a screen that had moved on, landed rows off;
    under a flood the rows had gone before they were asked for.)"""
    outer = after_seq(tiki_env, tmp_path, 3000, scrollback=1100)
    try:
        outer.literal("w0", printer)
        outer.keys("w0", "Enter")
        wait_until(lambda: any(row.isdigit() and int(row) > 3500 for row in view(outer.screen("w0"))), 20, 0.1,
                   what="the history full and moving")
        outer.keys("w0", "C-\\", "[")
        wait_until(lambda: re.search(r"\[0/1100\]", outer.screen("w0")), 10, 0.1, what="scrollback mode")
        numbers: list[int] = []
        for _ in range(30):  # the whole history, a page at a time, from the bottom up
            screen = outer.settled("w0")  # (the view is still in scrollback mode; a look mid-repaint tears)
            rows = [int(found.group()) for row in view(screen) if (found := re.match(r"\d+", row))]
            assert rows and rows == list(range(rows[0], rows[0] + len(rows))), "\n".join(view(screen))
            numbers = rows + [n for n in numbers if n > rows[-1]]
            if position(screen)[0] >= 1100:
                break
            outer.keys("w0", "PageUp")
            wait_until(lambda: position(outer.screen("w0"))[0] > position(screen)[0], 10, 0.1, what="a page up")
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        assert len(numbers) >= 1100
        outer.keys("w0", "q", "C-c")
    finally:
        outer.close()


def test_clear_empties_the_scrollback_as_in_a_tmux_pane(tiki_env, tmp_path):
    """`clear` (which ends with `CSI 3 J`, erase the saved lines) leaves nothing to scroll back
    to, as in a tmux pane beside it; what is printed after it scrolls back as usual. (The
    history kept everything that was cleared.)"""
    from test_mouse_tmux import sgr

    outer = after_seq(tiki_env, tmp_path, 3000)
    try:
        outer.window("pane", 140, 45)
        outer.literal("pane", "seq 1 3000; clear")
        outer.keys("pane", "Enter")
        outer.literal("w0", "clear")
        outer.keys("w0", "Enter")
        wait_until(lambda: not any(row.isdigit() for row in view(outer.screen("w0"))), 10, 0.1, what="the clear")
        wait_until(lambda: outer.tmux("display", "-p", "-t", "pane", "#{history_size}").strip() == "0", 10, 0.1,
                   what="the tmux pane's history emptied")
        outer.keys("w0", "C-\\", "[")
        wait_until(lambda: "[0/0]" in outer.screen("w0"), 10, 0.1, what="scrollback mode with no history")
        outer.keys("w0", "q")
        wait_until(lambda: "[0/0]" not in outer.screen("w0"), 10, 0.1, what="the live screen")
        outer.literal("w0", "seq 501 600")
        outer.keys("w0", "Enter")
        wait_until(lambda: "600" in view(outer.screen("w0")), 10, 0.1, what="new output")
        sgr(outer, "w0", 64, 10, 10)
        wait_until(lambda: view(outer.screen("w0"))[0].isdigit() and int(view(outer.screen("w0"))[0]) < 560, 10, 0.1,
                   what="the wheel back over the new lines")
    finally:
        outer.close()


def test_a_full_reset_keeps_the_history_as_a_tmux_pane_does(tiki_env, tmp_path):
    """`reset` (what users type to mend a garbled terminal) and `printf '\\033c'` send RIS: a
    tmux pane keeps its history through it (as xterm and WezTerm do), and the tab emptied it --
    pyavt starts afresh. The lines printed before are still there to scroll back to, in order."""
    outer = after_seq(tiki_env, tmp_path, 300)
    try:
        outer.window("pane", 140, 45)
        for window in ("w0", "pane"):
            outer.literal(window, "seq 1001 1100; printf '\\033c'; echo after-$((1+1))")
            outer.keys(window, "Enter")
        wait_until(lambda: "after-2" in outer.screen("pane") and "after-2" in view(outer.screen("w0"))[0], 10, 0.1,
                   what="the reset in both")
        pane = [line.strip() for line in outer.tmux("capture-pane", "-p", "-S", "-", "-t", "pane").splitlines()]
        tab = [line.strip() for line in tiki(tiki_env, "terminal-read", "sh", "--lines", "2000").stdout.splitlines()]
        numbers = [str(n) for n in range(1001, 1101)]
        assert [line for line in pane if line.isdigit()] == numbers  # (the reference)
        assert [line for line in tab if line.isdigit()] == [str(n) for n in range(1, 301)] + numbers, tab[-120:]
        outer.keys("w0", "C-\\", "[")  # scrollback mode counts them too
        wait_until(lambda: re.search(r"\[0/(\d+)\]", outer.screen("w0")), 10, 0.1, what="the indicator")
        assert position(outer.screen("w0"))[1] >= 400
    finally:
        outer.close()


def test_ctrl_l_keeps_what_was_on_the_screen_to_scroll_back_to_as_a_tmux_pane_does(tiki_env, tmp_path):
    """A shell's ctrl+l erases the screen (ED 2); a tmux pane (`scroll-on-clear`), VTE, Windows
    Terminal and Alacritty keep the rows it erased in the history. The tab lost them: output a
    user cleared away to think could not be scrolled back to."""
    outer = after_seq(tiki_env, tmp_path, 30)
    try:
        outer.window("pane", 140, 45)
        outer.literal("pane", "clear; seq 1 30")
        outer.keys("pane", "Enter")
        wait_until(lambda: "30" in outer.screen("pane").split(), 10, 0.1, what="seq in the pane")
        for window in ("w0", "pane"):
            outer.keys(window, "C-l")
        wait_until(lambda: not any(row.strip().isdigit() for row in view(outer.screen("w0")))
                   and not any(row.strip().isdigit() for row in outer.screen("pane").splitlines()), 10, 0.1,
                   what="the screens cleared")
        pane = [line.strip() for line in outer.tmux("capture-pane", "-p", "-S", "-", "-t", "pane").splitlines()]
        tab = [line.strip() for line in tiki(tiki_env, "terminal-read", "sh", "--lines", "200").stdout.splitlines()]
        numbers = [str(n) for n in range(1, 31)]
        assert [line for line in pane if line.isdigit()] == numbers  # (the reference)
        assert [line for line in tab if line.isdigit()] == numbers, tab
    finally:
        outer.close()
