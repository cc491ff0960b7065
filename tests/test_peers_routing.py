"""Routing of peer messages through the real bot and coordinator actors (fake Ollama)."""

from __future__ import annotations

import time

import pytest
from conftest import wait_until
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import RunDone, RunStarted, ToolEnd, ToolStart
from tikitaka.actors.events import BotChat, PeerNote

PEER = '[[tab]]\nname = "Claude"\ncommand = ["cat"]\nrole = "peer"\n'


@pytest.fixture
def agent(agent):
    """This module's hosts hold PEER and run the bot, with these peer settings."""
    return lambda **peers: agent(PEER, peers=peers)


def chat(a, text, sender="Claude", verified=True):
    a.host.bus.publish(BotChat(sender, text, verified))


def test_message_during_a_run_wakes_the_pending_wait(agent):
    a = agent()
    a.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="ok"))
    run_id = a.coordinator.submit("wait for Claude").get()
    wait_until(lambda: len(a.fake.requests) == 1 and a.coordinator.status().get()["turns"] == 1, what="waiting")
    time.sleep(0.3)  # let the wait tool start
    chat(a, "42, obviously")
    final, events = a.collect(run_id)
    wait = next(e for e in events if isinstance(e, ToolEnd) and e.tool == "wait")
    assert wait.result["peer_messages"] == [{"from": "Claude", "text": "42, obviously", "verified": True}]
    assert wait.result["waited"] < 30


def test_message_during_another_tool_is_attached_to_its_result(agent):
    a = agent()
    a.fake.script(Reply(chunks=['{"tool": "list_terminals", ', '"args": {}}'], delay=0.4),
                  Reply.action("done", message="ok"))
    run_id = a.coordinator.submit("list").get()
    wait_until(lambda: a.fake.requests, what="first turn started")
    chat(a, "by the way")  # arrives while the model is generating, before the tool runs
    final, events = a.collect(run_id)
    listed = next(e for e in events if isinstance(e, ToolEnd))
    assert listed.result["peer_messages"][0]["text"] == "by the way"


def test_idle_message_from_a_peer_we_talked_to_starts_a_continuation(agent):
    a = agent()
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="hello"), Reply.action("done", message="sent"))
    a.run("greet Claude")
    assert a.bot.states().get() == {"Claude": {"handshake": "handshake_sent"}}
    chat(a, "handshake-ok")
    wait_until(lambda: a.bot.states().get() == {"Claude": {"handshake": "connected"}}, what="connected")
    a.fake.script(Reply.action("done", message="noted"))
    chat(a, "here is more")
    started = wait_until(lambda: next((e for e in list(a.events.queue) if isinstance(e, RunStarted)
                                       and e.source == "peer:Claude"), None), what="continuation run")
    assert started.prompt == "[peer signal from Claude via bot-chat] here is more"
    final, _ = a.collect(started.run_id)
    assert isinstance(final, RunDone)


def test_idle_message_from_a_stranger_or_unverified_is_only_shown(agent):
    a = agent()
    chat(a, "hello from nowhere", sender="tester", verified=False)
    chat(a, "unasked", sender="Claude", verified=True)  # never talked to this session
    a.bot.states().get()  # the bot's mailbox is in order: both messages are routed by now
    assert a.coordinator.status().get()["queued"] == 0 and a.coordinator.status().get()["state"] == "idle"
    # A positive control through the same path: once the coordinator has talked to Claude, a
    # message from it does start a run. Messages are routed in order, so if either message
    # above had started a run, it would be the first continuation seen here.
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="hi"), Reply.action("done", message="sent"))
    a.run("greet")
    chat(a, "handshake-ok")
    wait_until(lambda: a.bot.states().get() == {"Claude": {"handshake": "connected"}}, what="connected")
    a.fake.script(Reply.action("done", message="noted"))
    chat(a, "the control")
    started = wait_until(lambda: [e for e in list(a.events.queue) if isinstance(e, RunStarted)
                                  and e.source != "user"], what="the control's continuation")
    assert [e.prompt for e in started] == ["[peer signal from Claude via bot-chat] the control"]
    assert not any("unasked" in r["messages"][-1]["content"] or "nowhere" in r["messages"][-1]["content"]
                   for r in a.fake.requests)


@pytest.mark.parametrize("word", ["ok", "ready", "ack", "handshake-ok"])
def test_a_connected_peer_saying_ok_reaches_the_pending_wait(agent, word):
    # Catalogue item 12: only a peer in handshake_sent acknowledges; a connected peer's short
    # answer is a message like any other.
    a = agent()
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="ready?"), Reply.action("done", message="sent"))
    a.run("greet")
    chat(a, "handshake-ok")
    wait_until(lambda: a.bot.states().get() == {"Claude": {"handshake": "connected"}}, what="connected")
    a.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="got it"))
    run_id = a.coordinator.submit("wait for Claude's answer").get()
    wait_until(lambda: any(isinstance(e, ToolStart) and e.run_id == run_id for e in list(a.events.queue)),
               what="the wait tool started")
    chat(a, word)
    final, events = a.collect(run_id)
    wait = next(e for e in events if isinstance(e, ToolEnd) and e.tool == "wait")
    assert wait.result.get("peer_messages") == [{"from": "Claude", "text": word, "verified": True}]


def test_continuation_rate_cap(agent):
    a = agent(continuations_per_minute=2)
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="hi"), Reply.action("done", message="sent"))
    a.run("greet")
    a.fake.script(*[Reply.action("done", message=f"c{i}") for i in range(5)])
    for i in range(3):
        wait_until(lambda: a.coordinator.status().get()["state"] == "idle", what="idle")
        chat(a, f"ping {i}")
        time.sleep(0.3)
    notes = wait_until(lambda: [e for e in list(a.events.queue) if isinstance(e, PeerNote)], what="cap note")
    assert "more than 2 continuation runs" in notes[0].note
    starts = [e for e in list(a.events.queue) if isinstance(e, RunStarted) and e.source == "peer:Claude"]
    assert len(starts) == 2


def test_reset_makes_every_peer_a_stranger(agent):
    a = agent()
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="hi"), Reply.action("done", message="sent"))
    a.run("greet")
    chat(a, "ok")
    wait_until(lambda: a.bot.states().get()["Claude"]["handshake"] == "connected", what="connected")
    a.coordinator.reset().get()
    wait_until(lambda: a.bot.states().get()["Claude"]["handshake"] == "not_connected", what="reset")


def test_rename_keeps_the_handshake_state(agent):
    a = agent()
    a.fake.script(Reply.action("send_to_terminal", tab="Claude", text="hi"), Reply.action("done", message="sent"))
    a.run("greet")
    chat(a, "ack")
    wait_until(lambda: a.bot.states().get()["Claude"]["handshake"] == "connected", what="connected")
    a.host.workspace.rename_tab("Claude", "Opus").get()
    wait_until(lambda: a.bot.states().get() == {"Opus": {"handshake": "connected"}}, what="renamed")
