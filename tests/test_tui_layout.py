"""The TUI's layout on small and large terminals, and its dialogs (issue 11): the agent panel
docks at the bottom below 120 columns, its log wraps at its own width, help scrolls, the tab
bar keeps the active tab in view, the new-tab dialog proposes a unique name, keeps what was
typed when the host refuses it (the error shows in the dialog) and switches to the new tab."""

from __future__ import annotations

import os

from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Label
from tui_helpers import PREFIX, make_app, stop, until

from tikitaka.app.tui.agent_panel import AgentPanel
from tikitaka.app.tui.dialogs import NewTabScreen

BASH = '[[tab]]\nname = "shell"\ncommand = ["bash", "--norc", "--noprofile"]\n'


async def test_narrow_terminals_dock_the_panel_at_the_bottom_and_the_log_wraps(tmp_path):
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: len(app.tabs) == 1, what="tabs")
            await pilot.pause()
            assert app.view.size.width == 80  # the tab gets the width; the panel is below it
            panel = app.query_one(AgentPanel)
            panel.write("word " * 60, "yellow")
            await pilot.pause()
            log = panel.log_widget
            assert len(log.lines) > 1 and all(line.cell_length <= log.size.width for line in log.lines)
            await pilot.resize_terminal(140, 40)
            await until(pilot, lambda: app.view.size.width < 140 and app.view.size.height > 30, what="panel right")
    finally:
        stop(app)



async def open_help(app, pilot) -> None:
    await until(pilot, lambda: len(app.tabs) == 1, what="tabs")
    await pilot.press(PREFIX, "?")
    await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
    await pilot.pause(0.3)  # (laid out)

async def test_help_scrolls_on_a_short_terminal(tmp_path):
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await open_help(app, pilot)
            scroller = app.screen.query_one(VerticalScroll)
            assert scroller.max_scroll_y > 0  # more than fits, and it can be reached
            scroller.focus()
            await pilot.press("end")
            await until(pilot, lambda: scroller.scroll_y == scroller.max_scroll_y, what="scrolled to the end")
    finally:
        stop(app)


async def open_new_tab_dialog(app, pilot) -> None:
    await until(pilot, lambda: len(app.tabs) == 1, what="tabs")
    await pilot.press(PREFIX, "c")
    await until(pilot, lambda: isinstance(app.screen, NewTabScreen), what="dialog")


async def test_new_tab_dialog_unique_name_error_in_place_and_switch(tmp_path):
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await open_new_tab_dialog(app, pilot)
            name = app.screen.query_one("#new-name", Input)
            assert name.value == "shell-2"  # "shell" is taken
            # (brackets are text: as markup, `[/]` took the UI down and `[abc]` was not shown)
            app.screen.query_one("#new-cwd", Input).value = str(tmp_path / "no-such-dir [abc] [/]")
            await pilot.press("enter")
            error = app.screen.query_one("#new-error", Label)
            await until(pilot, lambda: "no-such-dir [abc] [/]" in str(error.render()), what="the error in the dialog")
            assert isinstance(app.screen, NewTabScreen) and name.value == "shell-2"  # kept for a fix
            app.screen.query_one("#new-cwd", Input).value = str(tmp_path)
            await pilot.press("enter")
            await until(pilot, lambda: [t.name for t in app.tabs] == ["shell", "shell-2"], what="the new tab")
            await until(pilot, lambda: app.active_id == app.tabs[1].id and app.view.tab_id == app.tabs[1].id,
                        what="the new tab shown")
    finally:
        stop(app)


async def test_the_tab_bar_keeps_the_active_tab_in_view(tmp_path):
    many = "".join(f'[[tab]]\nname = "tab-number-{n}"\ncommand = ["sleep", "600"]\n' for n in range(1, 13))
    app = make_app(tmp_path, many, bare=True)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: len(app.tabs) == 12, what="tabs")
            app.show_tab(app.tabs[11].id)
            await pilot.pause()
            bar = str(app.tab_bar.render())
            assert "12 tab-number-12" in bar and "◂" in bar  # the last tab shown, and that more exist
            app.show_tab(app.tabs[0].id)
            await pilot.pause()
            bar = str(app.tab_bar.render())
            assert "1 tab-number-1 " in bar and "▸" in bar and "◂" not in bar
    finally:
        stop(app)


async def test_the_new_tab_dialog_offers_every_ai_cli_on_path_in_view(tmp_path, monkeypatch):
    # The host knows more AI CLIs than the four the dialog once listed; each found on PATH is
    # offered, and every button stays inside the dialog (four presets and shell overflowed it).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("claude", "codex", "gemini", "aider", "opencode", "qwen"):
        (bin_dir / program).write_text("#!/bin/sh\n")
        (bin_dir / program).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await open_new_tab_dialog(app, pilot)
            await pilot.pause()
            buttons = list(app.screen.query(".preset").results(Button))
            assert [str(b.label) for b in buttons][:6] == ["Aider", "Claude", "Codex", "Gemini", "Opencode", "Qwen"]
            assert str(buttons[-1].label) == "shell"
            dialog = app.screen.query_one(".dialog").content_region
            for button in buttons:
                assert dialog.contains_region(button.region), (str(button.label), button.region, dialog)
            buttons[4].press()
            await pilot.pause()
            assert app.screen.query_one("#new-command", Input).value == "opencode"
            assert app.screen.query_one("#new-name", Input).value == "Opencode"
    finally:
        stop(app)



async def test_help_shows_each_prefix_key_on_one_line(tmp_path):
    """The help's key column is as wide as its longest key: `Ctrl+\\ 1..9` split over two lines
    made every row of the table two lines tall (seen at 120x40 in tmux)."""
    from textual.geometry import Region

    from tikitaka.app.tui.keymap import COMMANDS, key_label

    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await open_help(app, pilot)
            keys = app.screen.query_one("#help-keys")
            width, height = keys.size
            lines = [strip.text for strip in keys.render_lines(Region(0, 0, width, height))]
            for command in COMMANDS:
                key = f"Ctrl+\\ {key_label(command.keys)}"
                assert any(key in line and command.help[:20] in line for line in lines), (key, lines)
    finally:
        stop(app)


async def test_the_palettes_screenshot_is_saved_where_tiki_runs_and_says_where(tmp_path, monkeypatch):
    """Textual's own saved to ~/Downloads and, where there is none (a server reached over
    SSH), said only "Failed to save screenshot". Now: the directory `tiki` was started in,
    the file named; a failure names the path and why."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: len(app.tabs) == 1, what="tabs")

            async def screenshot() -> str:
                before = len(app._notifications)
                await pilot.press(PREFIX, ":")
                await pilot.press(*"screenshot", "enter")
                await until(pilot, lambda: len(app._notifications) > before, what="a notification")
                return list(app._notifications)[-1].message

            said = await screenshot()
            saved = list(here.glob("*.svg"))
            assert len(saved) == 1 and str(saved[0]) in said and "<svg" in saved[0].read_text()[:500]
            again = await screenshot()  # (within the same second, as likely as not: the first is kept)
            saved = sorted(here.glob("*.svg"))
            assert len(saved) == 2 and all(str(svg) in said + again for svg in saved)
            for svg in saved:
                svg.unlink()
            here.rmdir()  # the directory tiki was started in is gone, and there is no home to fall back to
            monkeypatch.setenv("HOME", str(tmp_path / "no-home"))
            said = await screenshot()
            assert "not saved" in said and "No such file or directory" in said, said
    finally:
        stop(app)


async def test_zoom_under_a_dialog_zooms_the_tab_and_esc_still_closes_the_dialog(tmp_path):
    """Prefix f with the help open made the help screen "maximize" the tab view it does not
    hold: nothing changed, and the next Esc undid that instead of closing the help."""
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await open_help(app, pilot)
            await pilot.press(PREFIX, "f")
            await until(pilot, lambda: app.view.size == (120, 40), what="the tab zoomed behind the help")
            await pilot.press("escape")
            await until(pilot, lambda: type(app.screen).__name__ != "HelpScreen", what="the help closed")
            assert app.view.size == (120, 40)
            await pilot.press(PREFIX, "f")
            await until(pilot, lambda: app.view.size.width < 120, what="the layout back")
    finally:
        stop(app)
