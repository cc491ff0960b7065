"""The coordinator's interface to the peers (issue 5 builds on it): peer messages wake `wait`,
ride on other tool results or the next request (never dropped), the send filter, reset hooks,
and a queue of runs. Real tabs, the real `ollama` client, a scripted fake server."""

from __future__ import annotations

import pytest
from agent_helpers import AgentHost
from conftest import BASH_TAB, wait_until
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import RunDone, RunError, RunStarted, ToolEnd, ToolStart

PEER_TAB = '[[tab]]\nname = "Claude"\ncommand = ["cat"]\nrole = "peer"\n'
BOTH = BASH_TAB + PEER_TAB


@pytest.fixture
def agent(agent):
    """This module's hosts hold BOTH unless told otherwise."""
    return lambda workspace=BOTH, **coordinator: agent(workspace, **coordinator)


def next_event(a: AgentHost, kind, timeout: float = 20):
    while True:
        event = a.events.get(timeout=timeout)
        if isinstance(event, kind):
            return event


def ended(events, tool):
    return [e for e in events if isinstance(e, ToolEnd) and e.tool == tool]


def test_a_peer_message_wakes_a_pending_wait_at_once(agent):
    a = agent()
    a.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="Claude said 42"))
    run_id = a.coordinator.submit("ask Claude and wait").get()
    assert next_event(a, ToolStart).tool == "wait"
    assert a.coordinator.is_running().get() is True
    a.coordinator.peer_message("Claude", "DONE(42)", True).get()
    final, events = a.collect(run_id)
    result = ended(events, "wait")[0].result
    assert result["ok"] is True and result["waited"] < 20  # returned early, not after 30 s
    assert result["peer_messages"] == [{"from": "Claude", "text": "DONE(42)", "verified": True}]
    assert isinstance(final, RunDone)
    # the model saw the message in the wait's result
    assert "DONE(42)" in a.fake.requests[1]["messages"][-1]["content"]


def test_cancel_wakes_a_pending_wait(agent):
    a = agent()
    a.fake.script(Reply.action("wait", seconds=30))
    run_id = a.coordinator.submit("wait").get()
    next_event(a, ToolStart)
    a.coordinator.cancel().get()
    final, _ = a.collect(run_id, timeout=10)
    assert isinstance(final, RunError) and final.reason == "cancelled"


def test_messages_during_another_step_ride_on_the_next_tool_result(agent):
    a = agent()
    # the model takes a while to produce the read; the peer speaks meanwhile
    a.fake.script(Reply(chunks=Reply.action("read_terminal", tab="Claude", lines=5).chunks, delay=0.3),
                  Reply.action("done", message="ok"))
    run_id = a.coordinator.submit("read Claude").get()
    wait_until(lambda: a.fake.requests, what="the model turn to start")
    a.coordinator.peer_message("Claude", "first", True).get()
    a.coordinator.peer_message("Mallory", "second", False).get()
    final, events = a.collect(run_id)
    result = ended(events, "read_terminal")[0].result
    assert result["ok"] is True
    assert result["peer_messages"] == [{"from": "Claude", "text": "first", "verified": True},
                                       {"from": "Mallory", "text": "second", "verified": False}]


def test_a_message_too_late_for_the_run_goes_with_the_next_request(agent):
    a = agent()
    a.fake.script(Reply(chunks=Reply.action("done", message="bye").chunks, delay=0.3))
    run_id = a.coordinator.submit("first").get()
    wait_until(lambda: a.fake.requests, what="the model turn to start")
    a.coordinator.peer_message("Claude", "late answer", True).get()  # arrives during the final turn
    a.collect(run_id)
    a.fake.script(Reply.action("done", message="seen"))
    a.run("second")
    content = a.fake.requests[-1]["messages"][-1]["content"]
    assert content.startswith("second") and "late answer" in content
    assert any(e["kind"] == "peer_messages_kept" for e in a.host.event_log.tail(20))


def test_a_submit_during_a_run_is_queued_and_runs_next(agent):
    a = agent()
    a.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="one"),
                  Reply.action("done", message="two"))
    first = a.coordinator.submit("first").get()
    next_event(a, ToolStart)
    second = a.coordinator.submit("second", source="peer:Claude").get()
    status = a.coordinator.status().get()
    assert (status["state"], status["queued"]) == ("running", 1)
    a.coordinator.peer_message("Claude", "go on", True).get()
    assert a.collect(first)[0].message == "one"
    final, events = a.collect(second)
    assert final.message == "two" and events[0] == RunStarted(second, "second", "peer:Claude")
    assert a.coordinator.status().get()["queued"] == 0


def test_the_send_filter_adds_to_peer_tabs_but_never_to_a_shell(agent):
    a = agent(allow_shell=True)
    seen = []

    def send_filter(tab, role, text):
        seen.append((tab, role, text))
        return f"[hello {tab}, from tikitaka] {text}"

    a.coordinator.set_send_filter(send_filter).get()
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="what is 6*7?"),
                  Reply.action("send_to_terminal", tab="sh", text="echo shell-$((6*7))"),
                  Reply.action("done", message="sent"))
    final, _ = a.run("ask both")
    assert isinstance(final, RunDone)
    assert seen == [("Claude", "peer", "what is 6*7?"), ("sh", "shell", "echo shell-$((6*7))")]
    claude = a.host.workspace.get("Claude").get().terminal
    wait_until(lambda: "[hello Claude, from tikitaka] what is 6*7?" in claude.read_text(20).get()["text"],
               what="the header typed into the peer tab")
    sh = a.host.workspace.get("sh").get().terminal
    wait_until(lambda: "shell-42" in sh.read_text(20).get()["text"], what="the shell command's output")
    assert "hello sh" not in sh.read_text(40).get()["text"]


def test_reset_runs_the_hooks_and_starts_a_new_session(agent):
    a = agent()
    calls = []
    a.coordinator.add_reset_hook(lambda: calls.append("bot forgets")).get()
    a.coordinator.add_reset_hook(lambda: 1 / 0).get()  # a broken hook does not stop the reset
    a.coordinator.add_reset_hook(lambda: calls.append("second hook")).get()
    a.fake.script(Reply.action("done", message="one"))
    a.run("first")
    a.coordinator.reset().get()
    assert calls == ["bot forgets", "second hook"]
    assert [m["role"] for m in a.coordinator.messages().get()] == ["system"]


def test_reset_during_a_run_cancels_it_and_keeps_the_old_run_out_of_the_new_session(agent):
    a = agent()
    a.fake.script(Reply.action("wait", seconds=30))
    run_id = a.coordinator.submit("old request").get()
    next_event(a, ToolStart)
    a.coordinator.reset().get()
    final, _ = a.collect(run_id, timeout=10)
    assert isinstance(final, RunError) and final.reason == "cancelled"
    assert [m["role"] for m in a.coordinator.messages().get()] == ["system"]
    a.fake.script(Reply.action("done", message="fresh"))
    a.run("new request")
    assert "old request" not in str(a.fake.requests[-1]["messages"])


def test_status_shape(agent):
    a = agent()
    status = a.coordinator.status().get()
    assert {k: status[k] for k in ("state", "queued", "turns")} == {"state": "idle", "queued": 0, "turns": 0}
    assert status["backend"] == "ollama" and status["model"] == "gemma4:e4b"


def test_cancelling_a_queued_run_by_id_leaves_the_current_one_alone(agent):
    a = agent()
    a.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="first finished"))
    first = a.coordinator.submit("first").get()
    next_event(a, ToolStart)
    second = a.coordinator.submit("second").get()
    assert a.coordinator.cancel(second).get() is False  # not running: it simply never starts
    final, events = a.collect(second)  # (at once: its `tiki ask` need not wait for the first)
    assert isinstance(final, RunError) and final.reason == "cancelled"
    assert [event.kind for event in events] == ["queued", "error"]
    a.coordinator.peer_message("Claude", "wake up", True).get()
    assert a.collect(first)[0].message == "first finished"
    assert len(a.fake.requests) == 2  # the second run never reached the model
