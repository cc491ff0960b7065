"""The terminal view draws a real `terminals.screen.Screen` fed real bytes, sent as the host
sends it (screen frames of the UI protocol): colours, attributes, wide CJK cells, where the
terminal's cursor goes, and only the rows that changed are repainted (issues 3, 13)."""

from __future__ import annotations

import json

from rich.cells import cell_len
from rich.color import Color
from textual.app import App, ComposeResult

from tikitaka.actors.ipc.ui_frames import ScreenFrame
from tikitaka.app.tui.terminal_cursor import cursor_place
from tikitaka.app.tui.terminal_view import TerminalView
from tikitaka.terminals.screen import Screen

SAMPLE = ("\x1b[31mred\x1b[0m \x1b[1mbold\x1b[0m \x1b[38;5;45m256\x1b[0m \x1b[38;2;255;128;0mtrue\x1b[0m "
          "\x1b[3;4mit\x1b[0m \x1b[7mrev\x1b[0m 한국어|end\r\n").encode()


def frame(update) -> dict:
    """A screen update as a UI receives it: encoded by the host, decoded from JSON."""
    return json.loads(ScreenFrame.from_update(1, update).body())


class ViewApp(App):
    def compose(self) -> ComposeResult:
        yield TerminalView()


def cells(strip) -> list[tuple[str, object]]:
    """(character, style) per terminal cell; a wide character fills two cells."""
    out = []
    for segment in strip:
        for char in segment.text:
            out.append((char, segment.style))
            if cell_len(char) == 2:
                out.append(("", segment.style))
    return out


def style_of(strip, word: str):
    for segment in strip:
        if word in segment.text:
            return segment.style
    raise AssertionError(f"{word!r} not in {strip.text!r}")


async def test_colours_attributes_and_wide_cells():
    screen = Screen(40, 6, 100)
    screen.feed(SAMPLE)
    app = ViewApp()
    async with app.run_test(size=(40, 6)) as pilot:
        view = app.query_one(TerminalView)
        view.tab_id = 1
        view.apply_frame(frame(screen.take_update(full=True)))
        await pilot.pause()
        row = view.render_line(0)
        assert style_of(row, "red").color == Color.from_ansi(1)
        assert style_of(row, "bold").bold
        assert style_of(row, "256").color == Color.from_ansi(45)
        assert style_of(row, "true").color.triplet == (255, 128, 0)
        assert style_of(row, "it").italic and style_of(row, "it").underline
        assert style_of(row, "rev").reverse
        assert row.cell_length == 40  # exactly the widget's width, wide cells included
        # 한국어 takes 6 cells: "|end" starts where the emulator put it.
        line = screen.text(6).splitlines()[0]
        expected_col = len(line.split("한")[0]) + 6
        assert [c for c, _ in cells(row)][expected_col] == "|"


async def test_the_terminal_cursor_goes_where_the_screen_has_it_and_no_cell_is_drawn_for_it():
    screen = Screen(20, 4, 100)
    screen.feed(b"ab\r\ncd\x1b[6 q")
    app = ViewApp()
    async with app.run_test(size=(20, 4)) as pilot:
        view = app.query_one(TerminalView)
        view.focus()
        view.tab_id = 1
        view.apply_frame(frame(screen.take_update(full=True)))
        await pilot.pause()
        region = view.content_region
        assert cursor_place(view) == (region.x + 2, region.y + 1, 6)  # after "cd", a steady bar
        for y in range(2):
            assert not any(style and style.reverse for _, style in cells(view.render_line(y)))
        view.blur()  # focused on nothing (a click outside every widget): the view takes it back
        await pilot.pause()
        assert view.has_focus and cursor_place(view) == (region.x + 2, region.y + 1, 6)
        screen.feed(b"\x1b[?25l")  # the program hides it
        view.apply_frame(frame(screen.take_update()))
        assert cursor_place(view) is None


async def test_only_changed_rows_are_repainted():
    screen = Screen(30, 10, 100)
    screen.feed(b"\r\n".join(b"row %d" % i for i in range(5)))
    app = ViewApp()
    async with app.run_test(size=(30, 10)) as pilot:
        view = app.query_one(TerminalView)
        view.tab_id = 1
        view.apply_frame(frame(screen.take_update(full=True)))
        await pilot.pause()
        repainted: list[int] = []
        original = view.refresh

        def spy(*regions, **kwargs):
            repainted.extend(y for region in regions for y in range(region.y, region.bottom))
            if not regions:
                repainted.extend(range(view.size.height))
            return original(*regions, **kwargs)

        view.refresh = spy
        screen.feed(b"\x1b[2;1Hchanged\x1b[5;6H")  # rewrite row 1; cursor back to row 4
        update = screen.take_update()
        view.apply_frame(frame(update))
        assert not update.full
        assert set(repainted) == {1, 4}  # the changed row and the cursor's row, nothing else
        await pilot.pause()
        assert view.render_line(1).text.startswith("changed")
        assert view.render_line(2).text.startswith("row 2")


async def test_a_wide_character_under_the_cursor_stays_whole():
    screen = Screen(20, 3, 100)
    screen.feed("한어 end\x1b[1;3H".encode())  # the cursor on 어 (cells 2-3), as after moving left
    app = ViewApp()
    async with app.run_test(size=(20, 3)) as pilot:
        view = app.query_one(TerminalView)
        view.tab_id = 1
        view.focus()
        view.apply_frame(frame(screen.take_update(full=True)))
        await pilot.pause()
        row = cells(view.render_line(0))
        assert [char for char, _ in row[:7]] == ["한", "", "어", "", " ", "e", "n"]  # nothing lost
        region = view.content_region
        assert cursor_place(view) == (region.x + 2, region.y, 0)  # on 어's first cell


async def test_the_exit_banner_waits_for_the_exited_tabs_screen():
    """Switched to a tab that exited, the view showed the banner at once, over the screen it
    still had (the tab before's, or none: the banner on its top row) until the tab's frame came
    -- under load long enough for a look to see it there (CI run 82). It waits for the frame."""
    before, exited = Screen(40, 6, 100), Screen(40, 6, 100)
    before.feed(b"the tab before\r\n")
    exited.feed(b"row-1\r\nrow-2\r\nfatal: the reason\r\n")
    app = ViewApp()
    async with app.run_test(size=(40, 6)) as pilot:
        view = app.query_one(TerminalView)
        view.tab_id = 1
        view.apply_frame(frame(before.take_update(full=True)))
        view.show(2)  # (no host here: the frame is applied by hand below)
        view.set_exited("exited (code 1)")
        await pilot.pause()
        shown = [view.render_line(y).text for y in range(6)]
        assert not any("exited" in row for row in shown), shown
        update = frame(exited.take_update(full=True))
        update["tab"] = 2
        view.apply_frame(update)
        await pilot.pause()
        shown = [view.render_line(y).text.rstrip() for y in range(6)]
        assert shown[:3] == ["row-1", "row-2", "fatal: the reason"] and "exited (code 1)" in shown[3], shown
