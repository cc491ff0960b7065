"""Field bug: the agent panel follows its own run (by run id), labels another client's run as
such, and Esc cancels only its own run, even while that run waits in the queue."""

from __future__ import annotations

import os
import subprocess

from conftest import TIKI
from fake_ollama import Reply
from test_tui_agent import ai_mode, log_text
from tui_helpers import attach, until


async def test_the_panel_follows_its_own_run_and_esc_cancels_only_that(agent):
    a = agent()
    a.fake.script(
        Reply.action("wait", seconds=30),  # the outside run: a wait a peer message ends early...
        Reply(chunks=['{"tool": "wait", "args": {}}'], stall_after=0, stall_for=60),  # ...then a long turn
        Reply.action("done", message="my own answer"),  # only if Esc wrongly let mine start
    )
    app = attach(a.host)
    outside = subprocess.Popen([TIKI, "ask", "-q", "never answer this"], env=dict(os.environ),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await ai_mode(pilot, app)
            status = lambda: a.coordinator.status().get(timeout=5)  # noqa: E731
            await until(pilot, lambda: status()["state"] == "running" and a.fake.requests, what="the outside run")
            theirs = status()["run_id"]
            await pilot.press(*"mine please", "enter")
            await until(pilot, lambda: f"queued behind run {theirs}" in log_text(app), what="mine, queued")
            a.coordinator.peer_message("Claude", "ping", True).get(timeout=5)  # the outside run moves on
            await until(pilot, lambda: len(a.fake.requests) == 2, what="the outside run's next turn")
            await until(pilot, lambda: "wait" in log_text(app).split("queued behind")[-1], what="its tool card")
            after_mine = log_text(app).split("queued behind")[-1]
            assert f"another client's run {theirs}" in after_mine  # labelled: not my run's progress
            await pilot.press("escape")
            await until(pilot, lambda: "coordinator stopped: cancelled" in log_text(app), what="mine cancelled")
            assert status()["run_id"] == theirs and status()["queued"] == 0  # theirs runs on; mine is gone
            a.coordinator.cancel(theirs).get(timeout=5)
            await until(pilot, lambda: f"another client's run {theirs} stopped" in log_text(app), what="theirs ended")
            assert "my own answer" not in log_text(app)
            assert outside.wait(15) == 1
    finally:
        if outside.poll() is None:
            a.coordinator.cancel().get(timeout=5)
        outside.communicate(timeout=15)


def test_another_runs_tool_card_keeps_the_tools_name_in_a_narrow_panel():
    """Docked right (~45 columns), another client's card read `another client's run
    0adc61b62b · list_t─`: the label came first and the tool's name was cut."""
    from rich.console import Console

    from tikitaka.app.tui.tool_card import tool_card

    console = Console(width=45, record=True, color_system=None)
    console.print(tool_card({"tool": "list_terminals", "duration": 0.01, "args": {}, "result": {"ok": True}},
                            "another client's run 0adc61b62b"))
    shown = console.export_text()
    assert "list_terminals · 0.01 s" in shown and "another client's run 0adc61b62b" in shown, shown
