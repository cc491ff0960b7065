"""Consent before the coordinator types into a shell tab: asked through a responder (the TUI),
allowed per run or by config headless, refused otherwise; peer tabs need none (issue 4)."""

from __future__ import annotations

import pytest
from agent_helpers import AgentHost
from conftest import BASH_TAB, wait_until
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import ConsentNeeded, RunDone, RunError, ToolEnd

PEER_TAB = '[[tab]]\nname = "Claude"\ncommand = ["cat"]\nrole = "peer"\n'


@pytest.fixture
def agent(agent):
    """This module's hosts hold BASH_TAB + PEER_TAB unless told otherwise."""
    return lambda workspace=BASH_TAB + PEER_TAB, **coordinator: agent(workspace, **coordinator)


def screen(a: AgentHost, tab: str) -> str:
    return a.host.workspace.get(tab).get().terminal.read_text(40).get()["text"]


def next_consent(a: AgentHost, seen: list | None = None) -> ConsentNeeded:
    while True:
        event = a.events.get(timeout=20)
        if seen is not None:
            seen.append(event)
        if isinstance(event, ConsentNeeded):
            return event


def results(events):
    return [e.result for e in events if isinstance(e, ToolEnd)]



def asked_run(a: AgentHost, prompt: str, *replies: Reply) -> str:
    """A run of `replies` on `prompt`, with a UI there to be asked (the consent responder)."""
    a.coordinator.set_consent_responder(True).get()
    a.fake.script(*replies)
    return a.coordinator.submit(prompt).get()

def test_the_user_is_asked_and_once_always_deny_are_honoured(agent):
    a = agent()
    run_id = asked_run(
        a, "type things",
        Reply.action("send_to_terminal", tab="sh", text="echo once-$((1+1))"),
        Reply.action("send_to_terminal", tab="sh", text="echo denied-$((2+2))"),
        Reply.action("send_key", tab="sh", key="ctrl+l"),
        Reply.action("send_to_terminal", tab="sh", text="echo after-always-$((3+3))"),
        Reply.action("done", message="done"),
    )
    seen: list = []
    ask = next_consent(a, seen)
    assert (ask.run_id, ask.tab, ask.tool, ask.args["text"]) == (run_id, "sh", "send_to_terminal", "echo once-$((1+1))")
    assert a.coordinator.answer_consent(ask.request_id, "once").get() is True
    ask = next_consent(a, seen)  # "once" covers one action only
    a.coordinator.answer_consent(ask.request_id, "deny").get()
    ask = next_consent(a, seen)
    assert ask.tool == "send_key"
    a.coordinator.answer_consent(ask.request_id, "always").get()
    final, events = a.collect(run_id)  # no fourth question: "always" holds for this tab
    assert isinstance(final, RunDone)
    assert not [e for e in events if isinstance(e, ConsentNeeded)]
    outcomes = results(seen + events)
    assert [r["ok"] for r in outcomes] == [True, False, True, True]
    assert "denied" in outcomes[1]["error"]
    wait_until(lambda: "after-always-6" in screen(a, "sh"), what="the command allowed by 'always'")
    assert "denied-4" not in screen(a, "sh")
    assert a.coordinator.answer_consent("no-such-request", "once").get() is False



def test_a_request_the_user_denied_is_not_asked_again_in_the_run(agent):
    """Seen with Gemma 3 270M: denied, the model asked to type the same text again, and again
    (the repeat guard allows three identical calls): the user had to say no three times. The
    same request in the same run is now refused without a question, and the model is told so;
    another text, or the same one in the next run, is asked again."""
    a = agent()
    run_id = asked_run(
        a, "clean up",
        Reply.action("send_to_terminal", tab="sh", text="rm -rf build"),
        Reply.action("send_to_terminal", tab="sh", text="rm -rf build"),
        Reply.action("send_to_terminal", tab="sh", text="echo other-$((4+4))"),
        Reply.action("done", message="gave up"),
    )
    seen: list = []
    ask = next_consent(a, seen)
    a.coordinator.answer_consent(ask.request_id, "deny").get()
    ask = next_consent(a, seen)  # the next question is the other text: the repeat was not asked
    assert ask.args["text"] == "echo other-$((4+4))"
    a.coordinator.answer_consent(ask.request_id, "once").get()
    final, events = a.collect(run_id)
    assert isinstance(final, RunDone)
    outcomes = results(seen + events)
    assert [r["ok"] for r in outcomes] == [False, False, True]
    assert "already denied" in outcomes[1]["error"] and "rm -rf build" not in screen(a, "sh")
    wait_until(lambda: "other-8" in screen(a, "sh"), what="the other command, allowed")
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="rm -rf build"), Reply.action("done", message="ok"))
    run_id = a.coordinator.submit("clean up again").get()
    ask = next_consent(a)  # a new run asks again
    assert ask.args["text"] == "rm -rf build"
    a.coordinator.answer_consent(ask.request_id, "deny").get()
    assert isinstance(a.collect(run_id)[0], RunDone)

def test_headless_without_permission_nothing_is_typed_and_the_model_is_told(agent):
    a = agent()
    a.fake.script(Reply.action("send_key", tab="sh", key="ctrl+d"), Reply.action("done", message="could not"))
    final, events = a.run("log out")
    result = results(events)[0]
    assert result["ok"] is False and "consent" in result["error"] and "--allow-shell" in result["error"]
    tabs = {t.name: t for t in a.host.workspace.list_tabs().get()}
    assert tabs["sh"].running  # ctrl+d was not sent


def test_config_allow_shell_needs_no_question(agent):
    a = agent(allow_shell=True)
    a.coordinator.set_consent_responder(True).get()
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="echo config-$((5*5))"),
                  Reply.action("done", message="ok"))
    final, events = a.run("type")
    assert results(events)[0]["ok"] is True
    assert not [e for e in events if isinstance(e, ConsentNeeded)]
    wait_until(lambda: "config-25" in screen(a, "sh"), what="the typed command's output")


def test_peer_tabs_need_no_consent(agent):
    a = agent()
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="hello peer"),
                  Reply.action("done", message="ok"))
    final, events = a.run("greet")
    assert results(events)[0]["ok"] is True
    wait_until(lambda: "hello peer" in screen(a, "Claude"), what="the text in the peer tab")


def test_cancel_while_waiting_for_consent(agent):
    a = agent()
    a.coordinator.set_consent_responder(True).get()
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="echo never-$((7*7))"))
    run_id = a.coordinator.submit("type").get()
    ask = next_consent(a)
    a.coordinator.cancel().get()
    final, _ = a.collect(run_id, timeout=10)
    assert isinstance(final, RunError) and final.reason == "cancelled"
    assert a.coordinator.answer_consent(ask.request_id, "once").get() is False  # the question is gone
    assert "never-49" not in screen(a, "sh")
