"""The TUI through Textual's Pilot, with real PTY children behind the widgets (issue 3)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tui_helpers import PREFIX, make_app, screen_text, stop, until

from tikitaka.app.tui.agent_panel import AgentPanel
from tikitaka.app.tui.terminal_view import TerminalView

HERE = Path(__file__).parent
BASH = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'
PY = '[[tab]]\nname = "py"\ncommand = ["python3", "-q"]\n'


@pytest.fixture(autouse=True)
def isolated(in_tiki_env):
    return in_tiki_env


def logger_tab(path: Path) -> str:
    return f'[[tab]]\nname = "log"\ncommand = ["{sys.executable}", "{HERE / "key_logger.py"}", "{path}"]\n'


def reads(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_typing_in_the_terminal_runs_the_command(tmp_path):
    app = make_app(tmp_path, BASH)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: screen_text(app).strip(), what="prompt")
            assert app.query_one(TerminalView).has_focus  # focus is on the terminal at launch
            await pilot.press(*"echo tui-$((1+1))", "enter")
            await until(pilot, lambda: "\ntui-2" in screen_text(app), what="tui-2")
    finally:
        stop(app)


async def test_tab_switching_by_key_and_number(tmp_path):
    app = make_app(tmp_path, BASH + PY)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: len(app.tabs) == 2, what="tabs")
            first = app.active_id
            await pilot.press(PREFIX, "n")
            await until(pilot, lambda: app.active_id != first and ">>>" in screen_text(app), what="python tab")
            await pilot.press(*"print(6*7)", "enter")
            await until(pilot, lambda: "\n42" in screen_text(app), what="42")
            await pilot.press(PREFIX, "1")
            await until(pilot, lambda: app.active_id == first and "tui" not in screen_text(app) and ">>>" not in screen_text(app), what="back to sh")
            await pilot.press(PREFIX, "p")
            await until(pilot, lambda: app.active_id != first, what="previous wraps around")
    finally:
        stop(app)


async def test_mode_cycling_skips_ai_without_a_coordinator(tmp_path):
    app = make_app(tmp_path, BASH, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            panel = app.query_one(AgentPanel)
            await until(pilot, lambda: panel.ai_reason != "checking the coordinator's backend...", what="backend check")
            await pilot.press(PREFIX, "a")
            assert app.focused.id == "agent-input"
            assert panel.mode == "CHT"
            await pilot.press("shift+tab")
            assert panel.mode == "KEY"
            await pilot.press("shift+tab")
            assert panel.mode == "CHT"  # AI skipped: this host has no coordinator
            log = " ".join(" ".join(str(line.text) for line in panel.log_widget.lines).split())  # (wrapped)
            assert "AI mode unavailable: this host has no coordinator" in log
            await pilot.press(PREFIX, "a")
            assert app.query_one(TerminalView).has_focus
    finally:
        stop(app)


async def test_cht_mode_types_through_the_hosts_policy_text_then_enter(tmp_path):
    """CHT goes through the tab's outbox like every other sender (actors/tabs/outbox): the text
    whole, then Enter as its own write once the echo settled."""
    log = tmp_path / "reads.jsonl"
    app = make_app(tmp_path, logger_tab(log))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "logger ready" in screen_text(app), what="logger")
            await pilot.press(PREFIX, "a")
            await pilot.press(*"short line", "enter")
            await until(pilot, lambda: any(r["data"] == "\r" for r in reads(log)), what="enter")
            short = reads(log)
            assert "".join(r["data"] for r in short[:-1]) == "short line" and short[-1]["data"] == "\r"
            assert short[-1]["t"] > short[-2]["t"]  # Enter after the text, never glued to it
            long_text = "x" * 450
            app.query_one("#agent-input").value = long_text
            await pilot.press("enter")
            await until(pilot, lambda: len([r for r in reads(log) if r["data"] == "\r"]) == 2, what="second enter")
            rest = reads(log)[len(short):]
            assert "".join(r["data"] for r in rest[:-1]) == long_text and rest[-1]["data"] == "\r"
    finally:
        stop(app)


async def test_key_mode_forwards_raw_keys(tmp_path):
    log = tmp_path / "reads.jsonl"
    app = make_app(tmp_path, logger_tab(log))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "logger ready" in screen_text(app), what="logger")
            await pilot.press(PREFIX, "a", "shift+tab")
            assert app.query_one(AgentPanel).mode == "KEY"
            await pilot.press("up", "tab", "escape", "backspace", "ctrl+c", "enter", "q")
            expected = ["\x1b[A", "\t", "\x1b", "\x7f", "\x03", "\r", "q"]
            await until(pilot, lambda: len(reads(log)) >= len(expected), what="keys")
            assert "".join(r["data"] for r in reads(log)) == "".join(expected)
            assert app.query_one("#agent-input").value == ""  # nothing was typed into the input
    finally:
        stop(app)


async def test_resize_reaches_the_pty(tmp_path):
    app = make_app(tmp_path, BASH)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: screen_text(app).strip(), what="prompt")
            await pilot.resize_terminal(100, 30)
            await pilot.pause(0.3)
            view = app.query_one(TerminalView)
            await pilot.press(*"stty size", "enter")
            want = f"{view.size.height} {view.size.width}"
            await until(pilot, lambda: f"\n{want}" in screen_text(app), what=f"stty size {want}")
    finally:
        stop(app)


async def test_bot_chat_appears_in_the_agent_panel(tmp_path):
    from tikitaka.actors.events import BotChat

    app = make_app(tmp_path, BASH)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            app.host.bus.publish(BotChat("tester", "hello", False))
            panel = app.query_one(AgentPanel)
            await until(pilot, lambda: any("[tester] hello" in str(l.text) for l in panel.log_widget.lines),
                        what="bot-chat line")
    finally:
        stop(app)


async def test_screen_updates_while_a_dialog_is_open_do_not_crash_the_app(tmp_path):
    # Catalogue item 14: an actor event that arrives while a dialog covers the main screen
    # used to look the terminal view up on the dialog's screen and crash the app.
    ticker = '[[tab]]\nname = "tick"\ncommand = ["bash", "-c", "for i in $(seq 1 400); do echo tick-$i; sleep 0.02; done; exec cat"]\n'
    app = make_app(tmp_path, ticker)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "tick-" in screen_text(app), what="output")
            await pilot.press(PREFIX, "?")  # the help screen covers the terminal view
            await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help open")
            seen = screen_text(app)
            await until(pilot, lambda: screen_text(app) != seen, what="updates under the dialog")
            await pilot.pause(0.3)
            assert app.return_code is None and app.is_running
            await pilot.press("escape")
            last = screen_text(app)
            await until(pilot, lambda: screen_text(app) != last, what="updates after the dialog")
    finally:
        stop(app)
