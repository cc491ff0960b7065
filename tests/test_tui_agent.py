"""The agent panel in AI mode on a scripted fake Ollama (progress, tool cards, consent, cancel,
reset), and UI settings that persist between launches (issue 3)."""

from __future__ import annotations

import pytest
from conftest import BASH_TAB, peer
from fake_ollama import Reply
from textual.widgets import Label
from tui_helpers import PREFIX, attach, make_app, screen_text, stop, until

from tikitaka.app.tui import settings_store
from tikitaka.app.tui.agent_panel import AgentPanel


def log_text(app) -> str:
    # The log wraps at the panel's width: read it unwrapped (lines joined, spaces collapsed).
    return " ".join(" ".join(line.text for line in app.query_one(AgentPanel).log_widget.lines).split())


async def ai_mode(pilot, app) -> AgentPanel:
    panel = app.query_one(AgentPanel)
    await until(pilot, lambda: panel.ai_reason is None, what="backend found")
    await pilot.press(PREFIX, "a", "shift+tab", "shift+tab")
    assert panel.mode == "AI"
    return panel


async def test_ai_request_shows_tool_card_asks_consent_and_answers(agent):
    a = agent()
    a.fake.script(
        Reply.action("send_to_terminal", tab="sh", text="echo ai-$((40+2))"),
        Reply.action("done", message="typed it for you"),
    )
    app = attach(a.host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: screen_text(app).strip(), what="prompt")
        await ai_mode(pilot, app)
        await pilot.press(*"say hi in sh", "enter")
        await until(pilot, lambda: type(app.screen).__name__ == "ConsentScreen", what="consent dialog")
        await until(pilot, lambda: getattr(app.screen.focused, "id", None) == "deny", what="Deny focused")
        await pilot.press("left", "left")  # along the row of buttons, as in any dialog
        assert app.screen.focused.id == "once"
        await pilot.press("enter")
        await until(pilot, lambda: "coordinator typed it for you" in log_text(app), what="answer")
        text = log_text(app)
        assert "you say hi in sh" in text
        assert "send_to_terminal" in text and "ai-$((40+2))" in text  # the tool card: name, args...
        assert '"ok": true' in text  # ...and result
        assert "done · 2 turns ·" in text  # the run's figures, as in `tiki ask`
        await until(pilot, lambda: "\nai-42" in screen_text(app), what="the command ran in sh")


def dialog_text(app) -> str:
    return "\n".join(str(label.render()) for label in app.screen.query(Label))  # as drawn


async def test_denied_consent_types_nothing(agent):
    # The question shows exactly what would be typed: brackets are text, not markup (`ls [abc]`
    # was shown as `ls `, and a `[/]` took the UI down with a MarkupError).
    typed = "echo never-$((1+1)) [abc] [bold]x[/bold] [/]"
    a = agent()
    a.fake.script(
        Reply.action("send_to_terminal", tab="sh", text=typed),
        Reply.action("done", message="ok, I did not"),
    )
    app = attach(a.host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: screen_text(app).strip(), what="prompt")
        await ai_mode(pilot, app)
        await pilot.press(*"try it", "enter")
        await until(pilot, lambda: type(app.screen).__name__ == "ConsentScreen", what="consent dialog")
        assert dialog_text(app).startswith("The coordinator wants to type into shell tab 'sh' and press Enter:\n"
                                           + typed), dialog_text(app)
        await pilot.click("#deny")
        await until(pilot, lambda: "coordinator ok, I did not" in log_text(app), what="answer")
        assert "never-2" not in screen_text(app)


async def test_escape_cancels_a_run_and_reset_starts_a_new_session(agent):
    a = agent()
    a.fake.script(Reply(chunks=['{"tool": "wait", '] + ['"args": {}}'], delay=5.0))
    app = attach(a.host)
    async with app.run_test(size=(140, 45)) as pilot:
        await ai_mode(pilot, app)
        await pilot.press(*"wait a bit", "enter")
        await until(pilot, lambda: "coordinator:" in str(app.query_one("#agent-status").render()),
                    what="progress in the status line")
        await pilot.press("escape")
        await until(pilot, lambda: "coordinator stopped" in log_text(app), what="cancelled")
        # (a run that does not finish is taken back out of the conversation: no dangling turn)
        assert a.coordinator.status().get(timeout=5)["state"] == "idle"
        await pilot.press(*"/reset", "enter")
        await until(pilot, lambda: "new AI session" in log_text(app), what="reset note")
        await until(pilot, lambda: len(a.coordinator.messages().get(timeout=5)) <= 1, what="conversation forgotten")


@pytest.fixture
def isolated(in_tiki_env):
    return in_tiki_env


async def test_panel_position_and_theme_persist(tmp_path, isolated):
    app = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            assert app.ui["panel"] == "right"
            await pilot.press(PREFIX, "z")
            await until(pilot, lambda: app.query_one("#main").has_class("panel-bottom"), what="docked bottom")
            app.theme = "nord"
            await pilot.pause()
    finally:
        stop(app)
    assert settings_store.load() == {"panel": "bottom", "theme": "nord"}
    again = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with again.run_test(size=(120, 40)) as pilot:
            assert again.query_one("#main").has_class("panel-bottom")
            assert again.theme == "nord"
            await pilot.press(PREFIX, "z")  # bottom -> hidden
            assert not again.query_one(AgentPanel).display or again.query_one("#main").has_class("panel-hidden")
    finally:
        stop(again)
    assert settings_store.load()["panel"] == "hidden"


async def test_ai_mode_relays_at_name_to_a_peer_with_no_backend(tmp_path, in_tiki_env, monkeypatch):
    # issue 10: `@Name ...` needs no model, in the TUI as in `tiki ask`
    import json
    import sys
    from pathlib import Path

    monkeypatch.setenv("TIKI_BACKEND", "ollama")  # and nothing answers at OLLAMA_HOST
    standin = json.dumps(str(Path(__file__).parent / "peer_standin.py"))
    app = make_app(tmp_path, f'[[tab]]\nname = "Claude"\ncommand = [{json.dumps(sys.executable)}, {standin}]\n'
                             'role = "peer"\n')
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            panel = app.query_one(AgentPanel)
            await until(pilot, lambda: "stand-in ready" in screen_text(app), what="the stand-in")
            await until(pilot, lambda: panel.ai_reason not in (None, "checking the coordinator's backend..."),
                        what="the backend check")
            await pilot.press(PREFIX, "a", "shift+tab", "shift+tab")
            assert panel.mode == "AI"  # offered although no backend answers: relays need none
            assert "only `@Name ...` relays to peer tabs work" in log_text(app)
            panel.query_one("#agent-input").value = "@Claude what is 6 times 7?"
            await pilot.press("enter")
            await until(pilot, lambda: "coordinator 42, obviously (six sevens)" in log_text(app), timeout=30,
                        what="the peer's answer")
    finally:
        stop(app)


async def test_an_answer_that_skipped_the_named_peer_is_marked_in_the_panel(agent):
    a = agent(BASH_TAB + peer("Claude"))
    a.fake.script(Reply.action("done", message="42"), Reply.action("done", message="42, surely"))
    app = attach(a.host)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: screen_text(app).strip(), what="prompt")
        await ai_mode(pilot, app)
        await pilot.press(*"ask Claude what 6 times 7 is", "enter")
        await until(pilot, lambda: "coordinator 42, surely" in log_text(app), what="answer")
        await until(pilot, lambda: "Claude was never asked: the answer is the coordinator's own" in log_text(app),
                    what="the answer marked as not Claude's")


def test_the_consent_question_says_what_would_happen_in_words():
    from tikitaka.app.tui.dialogs import consent_question

    assert consent_question("send_key", "sh", {"tab": "sh", "key": "ctrl+c"}) == (
        "The coordinator wants to press a key in shell tab 'sh':", "ctrl+c")
    question, what = consent_question("send_to_terminal", "sh", {"tab": "sh", "text": ""})
    assert question.endswith("and press Enter:") and what == "(nothing but Enter)"
    assert consent_question("send_to_terminal", "sh", {"text": "  "})[1] == "(nothing but blanks and Enter)"
    long = consent_question("send_to_terminal", "sh", {"text": "x" * 800})[1]
    assert long == "x" * 500 + "… (300 more characters)"  # nothing typed goes unsaid
