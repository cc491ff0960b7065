"""The real `tiki` UI paints a frame's rows straight to the terminal when nothing covers the
view (app/tui/direct_paint.py, issue 13's attached speed): what it paints must be, cell for
cell, what Textual's compositor draws there, and a dialog over the view must stay whole while
the tab under it prints on. A flood typed into the UI (most of it held back and dropped unseen:
terminals/scroll_skip) ends on its last screen, with every line the history keeps."""

from __future__ import annotations

import json
import re
import time
from typing import Callable, Iterator

import pytest
from conftest import wait_until
from test_notify_tmux import CLAUDE
from tmux_outer import BASH, Outer, pytestmark, tiki  # noqa: F401

# Every kind of style a program uses: the 16 colours (passed on as written, for the terminal's
# own palette), 256 colours, truecolour, faint, bold, italic, underline, inverse, backgrounds,
# a default row after them, and wide characters.
STYLES = (r"printf '\e[31mred\e[0m \e[92mbright\e[0m \e[44mblue-bg\e[0m \e[38;5;208m208\e[0m "
          r"\e[38;2;10;200;30mtrue\e[0m \e[2mfaint\e[0m \e[1;3;4mbold-it-ul\e[0m \e[7minverse\e[0m 한국어|\n'; "
          r"for i in $(seq 1 24); do printf '\e[3%dm row %d \e[4%dm %s \e[0m plain\n' $((i % 8)) $i $(((i + 3) % 8)) "
          r"$(printf '%*s' $i | tr ' ' x); done; echo styled-$((1+1))")


def tab_cells(outer: Outer, window: str) -> list[list[tuple[str, str]]]:
    """The terminal view's cells (row 0, the tab bar, left out: its badges change)."""
    screen = outer.screen(window)
    width = min(line.index("│") for line in screen.splitlines()[1:] if "│" in line)
    return outer.cells(window, width)[1:]


def dialog_box(screen: str) -> list[str]:
    """The help dialog as it shows: each row between its left and right borders."""
    return [line[line.index("█"):line.rindex("█") + 1] for line in screen.splitlines() if "█" in line]


# Lines as an AI CLI prints them, one every 50 ms: colours, an underline, wide characters.
STREAM = (r"for i in $(seq 1 60); do printf '\e[3%dm line %d \e[0m 한국어 \e[4%dm%s\e[0m\n' "
          r"$((i % 8)) $i $((i % 8)) $(printf '%*s' $i | tr ' ' x); sleep 0.05; done; echo scrolled-$((1+1))")


def bytes_of_stream(outer: Outer, window: str, received, start) -> int:
    """The bytes `window`'s program writes to its terminal while `start()` has STREAM run in
    the tab it shows, until its last line is there."""
    outer.tmux("pipe-pane", "-O", "-t", window, f"cat > '{received}'")
    start()
    outer.wait(window, "scrolled-2")
    time.sleep(0.3)
    outer.tmux("pipe-pane", "-t", window)
    return received.stat().st_size


def shows(cells: list[list[tuple[str, str]]], text: str) -> bool:
    return any(text in "".join(char for char, _ in row) for row in cells)


def drawn_as_textual_draws_it(outer: Outer, window: str, cells: Callable[[], list]) -> None:
    """What `cells()` reads of the view, painted at once, is what Textual draws there: the
    help covers the view, and closing it has Textual draw it all again."""
    painted = cells()
    outer.keys(window, "C-\\", "?")
    outer.wait(window, "Every key goes to")
    outer.keys(window, "Escape")
    wait_until(lambda: "Every key goes to" not in outer.screen(window), 10, 0.1, what="the help to close")
    wait_until(lambda: cells() == painted, 10, 0.2, what="Textual's drawing of the view to equal what was painted")


@pytest.fixture
def outer(tiki_env, tmp_path) -> Iterator[Outer]:
    """The real UI at 120x36 in window w0, showing a bash tab (and a Claude stand-in behind)."""
    outer = Outer(tiki_env, 120, 36)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + CLAUDE)
        yield outer
    finally:
        outer.close()


def test_rows_painted_at_once_are_the_cells_textual_draws(outer):
    outer.literal("w0", STYLES)
    outer.keys("w0", "Enter")
    outer.wait("w0", "styled-2")
    assert shows(tab_cells(outer, "w0"), "row 24")  # the frames' rows, painted as they came
    drawn_as_textual_draws_it(outer, "w0", lambda: tab_cells(outer, "w0"))


def test_a_dialog_over_the_view_stays_whole_while_the_tab_prints_under_it(outer, tiki_env):
    outer.keys("w0", "C-\\", "?")
    outer.wait("w0", "Every key goes to")
    shown: list[list[str]] = [[]]

    def settled() -> bool:  # (the dialog's markdown is laid out once more after it shows)
        box, shown[0] = shown[0], dialog_box(outer.screen("w0"))
        return box == shown[0]
    wait_until(settled, 10, 0.3, what="the dialog to be drawn")
    dialog = shown[0]
    assert len(dialog) > 10
    # Output under the dialog, typed by another client: every row of the view changes.
    assert tiki(tiki_env, "terminal-send", "sh", "for i in $(seq 1 3000); do echo under-$i; done").returncode == 0
    wait_until(lambda: "under-3000" in tiki(tiki_env, "terminal-read", "sh", "--lines", "3").stdout, 30, 0.1,
               what="the tab to print it all")
    listed = json.loads(tiki(tiki_env, "terminal-list", "--json").stdout)["terminals"]
    assert listed[0]["watched"]  # frames keep coming to the UI under the dialog
    # The view's rows beside the dialog show the output; the dialog is untouched.
    screen = outer.wait("w0", "under-2999")
    assert dialog_box(screen) == dialog
    outer.keys("w0", "Escape")
    outer.wait("w0", "under-3000")  # and once it closes, the view is the tab's screen


def test_a_toast_over_the_view_stays_whole_while_the_tab_prints_under_it(outer, tiki_env):
    # A toast is on the same screen as the view, over its bottom right corner: the rows under
    # it must be left to Textual's compositor, which draws the toast over them.
    assert tiki(tiki_env, "terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "20000").returncode == 0
    assert tiki(tiki_env, "terminal-send", "Claude", "make a demo dir").returncode == 0
    outer.wait("w0", "Do you want to proceed?")  # the background tab waits: a toast for 8 s

    def toast(screen: str) -> list[str]:
        return [line[line.index("▌"):] for line in screen.splitlines() if "▌" in line]
    shown = toast(outer.screen("w0"))
    assert any("Claude needs you" in line for line in shown)
    assert tiki(tiki_env, "terminal-send", "sh", "for i in $(seq 1 3000); do echo under-$i; done").returncode == 0
    screen = outer.wait("w0", "under-2999")  # (well within the toast's 8 s)
    assert toast(screen) == shown


def test_a_flood_after_clear_ends_on_its_last_screen_with_the_history_whole(outer, tiki_env):
    # `clear` first: the flood starts at the top row (the lines down to the bottom one are
    # drawn, the rest held); 300,000 lines are far more than the 10,000 the history keeps, so
    # held lines are dropped many times over. Then a coloured line and a prompt.
    outer.literal("w0", r"clear; seq 1 300000; printf '\e[32mgreen-end\e[0m\n'; echo flood-$((1+1))")
    outer.keys("w0", "Enter")
    screen = outer.wait("w0", "flood-2", timeout=60)
    assert re.search(r"^\s*299999\s*│?\s*\n\s*300000\s*│?\s*\n\s*green-end", screen, re.M), screen
    read = tiki(tiki_env, "terminal-read", "sh", "--lines", "10000").stdout.splitlines()
    # The last 10,000 lines of the history and screen, none lost or repeated: the numbers,
    # then what followed them.
    assert read[-4:] == ["300000", "green-end", "flood-2", "$"]
    assert read[:-3] == [str(n) for n in range(300001 - 9997, 300001)]
    cells = json.loads(tiki(tiki_env, "terminal-read", "sh", "--cells").stdout)
    green = next(row for row in cells["cells"] if "".join(char for char, _ in row).startswith("green-end"))
    assert {cells["styles"][style]["fg"] for _, style in green[:9]} == {2}  # its colour, after the held lines


def test_switching_tabs_paints_the_other_tab_over_this_one_never_a_blank_view(tiki_env, tmp_path):
    """prefix+n: the view goes from one tab's screen to the other's, as a tmux window switch
    does. What the outer terminal receives, replayed into an emulator a few bytes at a time,
    never shows a view with nothing in it between the two. (The UI painted the whole view
    blank, then the other tab's snapshot when it came: a flash on every switch.)"""
    import codecs

    import avt

    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env, 120, 36)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + BASH.replace('"sh"', '"two"'))
        assert tiki(tiki_env, "terminal-send", "two", "printf 'TWO-%d ' $(seq 1 300); echo; echo two-$((1+1))").returncode == 0
        outer.literal("w0", "seq 1 40; echo one-$((1+1))")
        outer.keys("w0", "Enter")
        before = outer.wait("w0", "one-2")
        width = min(line.index("│") for line in before.splitlines()[1:] if "│" in line)
        emulator = avt.Vt(120, 36)
        emulator.feed_str("\r\n".join(outer.screen("w0", escapes=True).splitlines()))
        outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
        outer.keys("w0", "C-\\", "n")
        outer.wait("w0", "two-2")
        outer.tmux("pipe-pane", "-t", "w0")  # (closed: what came is all in the file)
        data = received.read_bytes()
        assert b"two-2" in data
        blank_at = []
        decoder = codecs.getincrementaldecoder("utf-8")()
        for at in range(0, len(data), 16):
            emulator.feed_str(decoder.decode(data[at:at + 16]))
            view = [line.text[:width].strip() for line in emulator.view()[1:]]
            if not any(view):
                blank_at.append(at)
        assert not blank_at, f"the view was blank after byte {blank_at[0]} of {len(data)}"
        # ...and nothing of the first tab's screen is left in it.
        rows = [line[:width].strip() for line in outer.screen("w0").splitlines()[1:]]
        assert not any(row.isdigit() or row.startswith("one-") for row in rows), "\n".join(rows)
    finally:
        outer.close()


@pytest.mark.parametrize("where", ["top", "bottom"])
def test_rows_beside_a_toast_are_painted_at_once(tiki_env, tmp_path, where):
    """A toast takes a few rows at the view's bottom right for seconds; the rows it does not
    share, and the part left of it of those it does (an agent CLI's input line), are still
    painted at once. Textual refreshes twice a second here (TEXTUAL_FPS=2), so an echo left to
    its compositor takes up to 0.5 s: each one must come well before that."""
    outer = Outer(tiki_env, 120, 36)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + CLAUDE, via="env TEXTUAL_FPS=2")
        assert tiki(tiki_env, "terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "20000").returncode == 0
        assert tiki(tiki_env, "terminal-send", "Claude", "make a demo dir").returncode == 0
        toast = [n for n, line in enumerate(outer.wait("w0", "Claude needs you").splitlines()) if "▌" in line]
        # `clear` leaves the prompt on the view's top row (screen row 1); the newlines take it
        # down to a row the toast shares (the toast is up for 8 s).
        outer.literal("w0", "clear" if where == "top" else f"clear; printf '%.0s\\n' $(seq 1 {toast[-1] - 1})")
        outer.keys("w0", "Enter")
        row = 1 if where == "top" else toast[-1]

        def prompt_there() -> bool:
            rows = outer.screen("w0").splitlines()
            return "clear" not in "".join(rows) and rows[row].startswith("$")
        wait_until(prompt_there, 10, 0.05, what=f"the prompt on screen row {row}")
        if where == "bottom":  # the prompt's row is one the toast shares
            assert "▌" in outer.screen("w0").splitlines()[row]
        waits = []
        for typed in ("e", "ec", "ech", "echo"):
            start = time.monotonic()
            outer.literal("w0", typed[-1])
            wait_until(lambda typed=typed: f"$ {typed}" in outer.screen("w0"), 5, 0.01, what=f"{typed!r} echoed")
            waits.append(time.monotonic() - start)
            time.sleep(0.05)
        assert "Claude needs you" in outer.screen("w0")  # (the toast was up all along)
        assert max(waits) < 0.2, [round(w, 3) for w in waits]
    finally:
        outer.close()


# The 16 colours, plain and bright: a program's palette, foregrounds on one row, backgrounds below.
PALETTE = (r"printf F; for c in 30 31 32 33 34 35 36 37 90 91 92 93 94 95 96 97; do printf '\e[%dm%d\e[0m' $c $c; "
           r"done; printf '\nB'; for c in 40 41 42 43 44 45 46 47 100 101 102 103 104 105 106 107; do "
           r"printf '\e[%dm%d\e[0m' $c $c; done; echo; echo palette-$((1+1))")


def palette_rows(outer: Outer, window: str, cols: int) -> list[list[tuple[str, str]]]:
    """The cells of the two rows the palette is printed on (each up to its last colour)."""
    rows = [row for row in outer.cells(window, cols) if "".join(char for char, _ in row).startswith(("F3031", "B4041"))]
    assert len(rows) == 2, f"no palette rows in {window}:\n{outer.screen(window)}"
    return [row[:len("".join(char for char, _ in row).rstrip())] for row in rows]


def test_the_sixteen_colours_reach_the_terminal_as_the_program_wrote_them(outer):
    # A user's terminal has its own palette (Solarized, a light theme): a tmux pane passes a
    # program's `\e[31m` on, and so must the view -- in the rows painted at once and in the
    # ones Textual draws -- not the UI theme's idea of red.
    reference = outer.window("ref")
    outer.keys(reference, "clear; " + PALETTE, "Enter")
    outer.wait(reference, "palette-2")
    expected = palette_rows(outer, reference, 120)
    assert len({pen for row in expected for _, pen in row}) == 33  # every colour its own pen, and the default
    outer.literal("w0", "clear; " + PALETTE)
    outer.keys("w0", "Enter")
    outer.wait("w0", "palette-2")
    assert palette_rows(outer, "w0", 70) == expected  # painted at once
    outer.keys("w0", "C-\\", "?")  # the help covers the view; closing it has Textual draw it all
    outer.wait("w0", "Every key goes to")
    outer.keys("w0", "Escape")
    wait_until(lambda: "Every key goes to" not in outer.screen("w0"), 10, 0.1, what="the help to close")
    assert palette_rows(outer, "w0", 70) == expected  # drawn by Textual


def test_a_tab_printing_line_after_line_is_scrolled_in_the_terminal_not_written_again(tiki_env, tmp_path):
    """A line printed at the bottom scrolls every row of the tab, and the UI wrote every row
    again each frame: ~100 bytes a row, 17-33x what a tmux client sends for the same stream
    (bench/outer_bytes.py), paid for over SSH. Where the view is as wide as the terminal, the
    terminal now scrolls the rows itself and only the new ones are written -- and what shows
    must still be, cell for cell, what Textual draws there."""
    from tmux_outer import panel_at

    panel_at(tiki_env, "hidden")  # (beside a panel the terminal could not scroll the view's rows alone)
    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env, 100, 30)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.settled("w0")  # (the UI's first paints are not the frames counted)
        written = bytes_of_stream(outer, "w0", received,
                                  lambda: (outer.literal("w0", STREAM), outer.keys("w0", "Enter")))
        # Written again each line: 60 frames of the 29 rows, ~100 bytes each (~170 KB).
        assert written < 60 * 29 * 100 / 4, written
        assert shows(outer.cells("w0", 100), "line 60")
        drawn_as_textual_draws_it(outer, "w0", lambda: outer.cells("w0", 100)[1:])
    finally:
        outer.close()


def test_a_rows_trailing_blanks_are_erased_not_written(outer, tiki_env, tmp_path):
    """Beside the panel a scrolling tab's rows are all written again each frame (the terminal
    cannot scroll them alone), and each was padded to the view's width with blanks: a row of
    "7" cost 80 bytes. The blanks after a row's text are erased (ECH) instead -- what shows
    must stay, cell for cell, what Textual draws there."""
    # (Under load the UI's first paints were still coming, the whole screen twice: counted,
    # they made ~29 thousand bytes of the ~10 the frames take.)
    outer.wait("w0", "CHT: type into")
    outer.settled("w0")
    received = tmp_path / "outer.bytes"
    outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
    outer.literal("w0", "for i in $(seq 1 40); do echo $i; sleep 0.05; done; echo short-$((2+2))")
    outer.keys("w0", "Enter")
    outer.wait("w0", "short-4")
    time.sleep(0.3)
    outer.tmux("pipe-pane", "-t", "w0")
    written = received.stat().st_size
    width = len(tab_cells(outer, "w0")[0])
    # Each frame after the screen filled wrote its 35 rows padded to the view's width: 37,115
    # bytes in all, where the erased blanks take 15-17 thousand (how many frames the 40 lines
    # make varies with the machine's load).
    assert written < 20 * 35 * width * 0.55, (written, width)
    drawn_as_textual_draws_it(outer, "w0", lambda: tab_cells(outer, "w0"))


def test_a_smaller_second_ui_paints_the_rows_in_sight_not_its_whole_view(tiki_env, tmp_path):
    """A tab takes the size of the UI used last; a smaller UI watching it shows it panned (the
    cursor in sight). That UI drew its whole view again for every frame -- 643 thousand bytes
    for 200 lines streamed, 22x what the larger UI took: a laptop watching an agent over SSH
    while a desktop was used last. Now it paints the rows in sight that changed (scrolled by
    the terminal; 8,856 bytes in one run), and what shows must still be what Textual draws there."""
    from tmux_outer import panel_at

    panel_at(tiki_env, "hidden")
    received = tmp_path / "small.bytes"
    outer = Outer(tiki_env, 140, 45)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.window("small", 100, 30)
        outer.tiki("small")
        outer.wait("small", "? help")

        def larger_used_last() -> bool:  # (the tab takes the size of the UI used last)
            outer.keys("w0", "Enter")  # (again: the smaller one's start, its size told, may come after)
            return any("140x44" in line and "used last" in line for line in tiki(tiki_env, "status").stdout.splitlines())
        wait_until(larger_used_last, 10, 0.3, what="the larger UI to be the one the tab is sized to")
        outer.settled("small")
        written = bytes_of_stream(outer, "small", received, lambda: tiki(tiki_env, "terminal-send", "sh", STREAM))
        # Drawn whole each line: 60 frames of the 29 rows in sight, ~100 bytes each (~170 KB).
        assert written < 60 * 29 * 100 / 4, written
        assert shows(outer.cells("small", 100), "line 60")
        drawn_as_textual_draws_it(outer, "small", lambda: outer.cells("small", 100)[1:])
    finally:
        outer.close()


def test_a_pager_moving_a_line_is_scrolled_in_the_terminal_both_ways(tiki_env, tmp_path):
    """`less` moving a line down (j) or up (k) redraws its rows on the alternate screen, where no
    history grows: the view wrote every row again for each key (~100 bytes a row), where a tmux
    client sends a scroll and the new line. The rows tell the move; the terminal scrolls the
    view, and what shows must still be what Textual draws there."""
    from tmux_outer import panel_at

    panel_at(tiki_env, "hidden")
    text = tmp_path / "text.txt"
    text.write_text("".join(f"line {i:03d} " + "한국어 " * (i % 4) + "x" * (i % 50) + "\n" for i in range(1, 400)))
    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env, 100, 30)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.literal("w0", f"less -S {text}")
        outer.keys("w0", "Enter")
        outer.wait("w0", "line 028")
        outer.settled("w0")
        outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
        for _ in range(12):
            outer.keys("w0", "j")
            time.sleep(0.1)
        outer.wait("w0", "line 040")
        for _ in range(4):
            outer.keys("w0", "k")
            time.sleep(0.1)
        wait_until(lambda: "line 009" in outer.screen("w0") and "line 008" not in outer.screen("w0"), 10, 0.1,
                   what="less four lines back up")
        time.sleep(0.3)
        outer.tmux("pipe-pane", "-t", "w0")
        written = received.stat().st_size
        # Written again each key: 16 frames of the 29 rows, ~60 bytes each (~28 KB).
        assert written < 16 * 29 * 60 / 3, written
        drawn_as_textual_draws_it(outer, "w0", lambda: outer.cells("w0", 100)[1:])
        outer.keys("w0", "q")
    finally:
        outer.close()
