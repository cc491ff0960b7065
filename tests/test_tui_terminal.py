"""The terminal widget with real PTY children behind a real UI session: every key reaches the
child as xterm bytes (F-keys included: only the prefix key is tikitaka's), paste (bracketed
when asked), scrollback, exit badges, stopping the host only when confirmed (issues 3, 11, 13)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual import events
from textual.command import CommandPalette
from tui_helpers import PREFIX, make_app, screen_text, stop, until

from tikitaka.app.tui.agent_panel import AgentPanel
from tikitaka.app.tui.tab_bar import TabBar
from tikitaka.app.tui.terminal_view import TerminalView

HERE = Path(__file__).parent
BASH = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'


@pytest.fixture(autouse=True)
def isolated(in_tiki_env):
    return in_tiki_env


def logger_tab(path: Path, name: str = "log", *extra: str) -> str:
    args = ", ".join(f'"{a}"' for a in (sys.executable, str(HERE / "key_logger.py"), str(path), *extra))
    return f'[[tab]]\nname = "{name}"\ncommand = [{args}]\n'


def received(path: Path) -> str:
    if not path.exists():
        return ""
    return "".join(json.loads(line)["data"] for line in path.read_text().splitlines())


def view_lines(app) -> list[str]:
    view = app.query_one(TerminalView)
    return [view.render_line(y).text for y in range(view.size.height)]


async def test_ctrl_alt_function_and_arrow_keys_reach_the_child(tmp_path):
    log = tmp_path / "reads.jsonl"
    app = make_app(tmp_path, logger_tab(log), bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "logger ready" in screen_text(app), what="logger")
            keys = {
                "ctrl+a": "\x01", "ctrl+c": "\x03", "ctrl+q": "\x11", "ctrl+z": "\x1a",
                "alt+x": "\x1bx", "f1": "\x1bOP", "f4": "\x1bOS", "f5": "\x1b[15~", "f10": "\x1b[21~",
                "f11": "\x1b[23~", "f12": "\x1b[24~", "up": "\x1b[A", "ctrl+right": "\x1b[1;5C",
                "shift+up": "\x1b[1;2A", "home": "\x1b[H", "delete": "\x1b[3~", "pageup": "\x1b[5~",
                "tab": "\t", "shift+tab": "\x1b[Z", "escape": "\x1b", "backspace": "\x7f", "enter": "\r",
                "é": "é",
            }
            expected = ""
            for key, data in keys.items():
                await pilot.press(key)
                expected += data
                await until(pilot, lambda: received(log) == expected, what=f"{key} -> {data!r}")
            assert app.is_running  # ctrl+q went to the child, it did not quit the app
            assert app.query_one(TerminalView).has_focus  # tab/shift+tab did not move focus
    finally:
        stop(app)


async def test_prefix_commands_are_not_forwarded_and_the_prefix_twice_is(tmp_path):
    log = tmp_path / "reads.jsonl"
    app = make_app(tmp_path, logger_tab(log) + BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "logger ready" in screen_text(app), what="logger")
            first = app.active_id
            await pilot.press(PREFIX, "n")  # next tab: a command, not keys for the child
            await until(pilot, lambda: app.active_id != first, what="next tab")
            await pilot.press(PREFIX, "1")
            await until(pilot, lambda: app.active_id == first and "logger ready" in screen_text(app), what="tab 1")
            await pilot.press(PREFIX, "j")  # not a command: dropped, as in tmux
            await pilot.press("z")
            await until(pilot, lambda: received(log) == "z", what="z")  # and nothing before it
            await pilot.press(PREFIX, PREFIX)
            await until(pilot, lambda: received(log) == "z\x1c", what="the prefix itself")
    finally:
        stop(app)


async def test_paste_is_bracketed_only_when_the_child_asked(tmp_path):
    plain, bracketed = tmp_path / "plain.jsonl", tmp_path / "bracketed.jsonl"
    app = make_app(tmp_path, logger_tab(plain, "plain") + logger_tab(bracketed, "br", "--bracketed"), bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            view = app.query_one(TerminalView)
            await until(pilot, lambda: "logger ready" in screen_text(app), what="logger")
            view.post_message(events.Paste("one\ntwo"))
            await until(pilot, lambda: received(plain) == "one\rtwo", what="plain paste")
            await pilot.press(PREFIX, "n")
            await until(pilot, lambda: "bracketed ready" in screen_text(app), what="second logger")
            view.post_message(events.Paste("three"))
            await until(pilot, lambda: received(bracketed) == "\x1b[200~three\x1b[201~", what="bracketed paste")
    finally:
        stop(app)


async def test_shift_pageup_and_the_wheel_scroll_back_through_history(tmp_path):
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: screen_text(app).strip(), what="prompt")
            await pilot.press(*"seq -f line%03g 1 300", "enter")
            await until(pilot, lambda: "line300" in screen_text(app), what="output")
            view = app.query_one(TerminalView)
            assert not any("line200" in line for line in view_lines(app))
            await pilot.press("shift+pageup")
            await until(pilot, lambda: view.scroll_offset_rows > 0, what="scrolled")
            for _ in range(20):  # half a screen per press, until the top of the history
                await pilot.press("shift+pageup")
            await until(pilot, lambda: "line001" in "".join(view_lines(app)[:2]), what="the oldest lines on top")
            assert not any("line300" in line for line in view_lines(app))
            for _ in range(3):  # back down a little: the rows follow
                await pilot.press("shift+pagedown")
            await until(pilot, lambda: any("line070" in line for line in view_lines(app))
                        and not any("line001" in line for line in view_lines(app)), what="scrolled down")
            await pilot.press("x")  # any key returns to the live screen (and reaches the shell)
            await until(pilot, lambda: view.scroll_offset_rows == 0 and any(
                line.rstrip().endswith("x") for line in view_lines(app)), what="live again")
            await pilot.press("backspace")
            view.post_message(events.MouseScrollUp(view, 5, 5, 0, -1, 0, False, False, False))
            await until(pilot, lambda: view.scroll_offset_rows == 3, what="wheel scroll")
            view.post_message(events.MouseScrollDown(view, 5, 5, 0, 1, 0, False, False, False))
            await until(pilot, lambda: view.scroll_offset_rows == 0, what="wheel back")
    finally:
        stop(app)


async def test_exited_tab_shows_its_code_and_last_screen(tmp_path):
    ws = '[[tab]]\nname = "quick"\ncommand = ["bash", "-c", "echo last-words; exit 3"]\n'
    app = make_app(tmp_path, ws, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            bar = app.query_one(TabBar)
            await until(pilot, lambda: "exited (3)" in str(bar.render()), what="exit badge")
            await until(pilot, lambda: "last-words" in screen_text(app), what="last screen")
            # over the last screen, what happened and what to do (issue 11)
            drawn = lambda: "\n".join(app.view.render_line(y).text for y in range(app.view.size.height))  # noqa: E731
            await until(pilot, lambda: "exited (code 3) — Ctrl+\\ r to restart" in drawn(), what="overlay")
            assert "last-words" in drawn()
            panel = app.query_one(AgentPanel)
            await until(pilot, lambda: "quick exited (code 3)" in " ".join(" ".join(str(l.text) for l in panel.log_widget.lines).split()),
                        what="exit note")
    finally:
        stop(app)


async def test_stopping_the_host_asks_and_defaults_to_cancel(tmp_path):
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.tabs and app.tabs[0].running, what="tab running")
            await pilot.press("ctrl+q")  # the program's key now, never tikitaka's
            await pilot.press(PREFIX, "q")
            await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="stop question")
            await pilot.press("enter")  # the default answer: Cancel
            await until(pilot, lambda: type(app.screen).__name__ != "ConfirmScreen", what="dialog closed")
            await pilot.press(PREFIX, "q", "n")
            await pilot.pause(0.3)
            assert app.is_running and not app.host.stopped
            await pilot.press(PREFIX, "q")  # the arrows go along the buttons, and back
            await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="stop question")
            await until(pilot, lambda: getattr(app.screen.focused, "id", None) == "no", what="No focused")
            await pilot.press("left")
            assert app.screen.focused.id == "yes"
            await pilot.press("right", "enter")  # Cancel again
            await until(pilot, lambda: type(app.screen).__name__ != "ConfirmScreen", what="dialog closed")
            assert app.is_running and not app.host.stopped
            await pilot.press(PREFIX, "q", "y")
            await until(pilot, lambda: not app.is_running, what="the UI to leave")
            assert app.host.wait_stopped(15)  # the host (and its tabs) stopped
    finally:
        stop(app)


async def test_a_prefix_command_typed_after_escape_runs_after_it(tmp_path):
    """Escape, then prefix `:` at once (one read, or two close together): the palette that
    Escape closes opens again, as the keys were typed. A key goes from the app to the focused
    widget's own queue, the prefix command runs in the app's: the command overtook the Escape,
    found the palette still open and did nothing, then the Escape closed it (the real UI under
    tmux, one run in ~15)."""
    from tikitaka.app.tui.messages import PrefixKey

    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.view.tab_id is not None, what="the tab")
            for round_ in range(3):
                app.post_message(PrefixKey(":"))
                await until(pilot, lambda: isinstance(app.screen, CommandPalette) and app.screen.focused, what="palette")
                first = app.screen
                # As the input thread hands them on, in the order read: no wait between them.
                app.post_message(events.Key("escape", "\x1b"))
                app.post_message(PrefixKey(":"))
                await until(pilot, lambda: app.screen is not first, what=f"the first palette to close ({round_})")
                await pilot.pause(0.1)
                assert isinstance(app.screen, CommandPalette), f"round {round_}: {app.screen_stack}"
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, CommandPalette), what="the palette to close")
    finally:
        stop(app)


async def test_command_palette_switches_tabs_and_detaches(tmp_path):
    py = '[[tab]]\nname = "py"\ncommand = ["python3", "-q"]\n'
    app = make_app(tmp_path, BASH + py, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: len(app.tabs) == 2, what="tabs")
            first = app.active_id
            await pilot.press(PREFIX, ":")
            await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
            await pilot.press(*"go to tab py")
            await pilot.pause(0.5)
            await pilot.press("enter")
            await until(pilot, lambda: app.active_id != first and ">>>" in screen_text(app), what="tab py via palette")
            await pilot.press(PREFIX, ":")
            await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
            await pilot.press(*"detach")
            await pilot.pause(0.5)
            await pilot.press("enter")
            await until(pilot, lambda: not app.is_running, what="detached")
            assert not app.host.stopped  # detaching leaves the host and its tabs running
            assert all(tab.running for tab in app.host.workspace.list_tabs().get(timeout=5))
    finally:
        stop(app)


async def test_the_app_keeps_running_under_a_dialog_while_tabs_print(tmp_path):
    ws = '[[tab]]\nname = "busy"\ncommand = ["bash", "-c", "for i in $(seq 1 100000); do echo tick-$i; sleep 0.01; done"]\n'
    app = make_app(tmp_path, ws, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "tick-" in screen_text(app), what="output")
            await pilot.press(PREFIX, "?")  # help is a modal screen: the main screen's widgets are not queryable
            await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
            await pilot.pause(1.5)  # screen updates and the 1 s tab refresh arrive meanwhile
            assert app.is_running
            before = screen_text(app)
            await pilot.press("escape")
            await until(pilot, lambda: screen_text(app) != before, what="the terminal still updating")
    finally:
        stop(app)


async def test_a_tab_switch_keeps_the_last_screen_until_the_new_one_comes_or_too_long(tmp_path):
    """The view goes from one tab's screen straight to the other's (the tmux test in
    test_direct_paint_tmux sees that through a real terminal). When the other's screen is
    slow to come -- here the watch request is held back, as a host that has stopped answering
    would -- the old screen does not stand in for it for long: the view goes blank."""
    app = make_app(tmp_path, BASH + BASH.replace('"sh"', '"two"'))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.view.tab_id is not None and screen_text(app).strip(), what="a prompt")
            app.client.input(app.view.tab_id, b"echo first-$((1+1))\r")
            await until(pilot, lambda: "first-2" in screen_text(app), what="the first tab's output")
            two = next(tab.id for tab in app.tabs if tab.name == "two")
            held: list[int] = []
            watch, app.client.watch = app.client.watch, held.append
            app.show_tab(two)
            await pilot.pause(0.05)
            assert held == [two] and "first-2" in screen_text(app)  # no frame yet: the last screen stays
            await until(pilot, lambda: not screen_text(app).strip(), timeout=2, what="a blank view")
            watch(two)  # the answer comes after all
            await until(pilot, lambda: screen_text(app).strip(), what="the second tab's screen")
            assert "first-2" not in screen_text(app)
    finally:
        stop(app)
