"""Field bugs inside a run, on an in-process host with the model faked: a cancelled consent
question is not a denial, a cut request says so and keeps the tabs, and a long peer message
keeps its start."""

from __future__ import annotations

import json

from conftest import BASH_TAB
from fake_ollama import Reply
from test_coordinator_consent import next_consent

from tikitaka.actors.coordinator.context import TokenCounter
from tikitaka.actors.coordinator.events import Compacted, RunError, ToolEnd
from tikitaka.actors.coordinator.results import Budget


def test_cancelling_an_open_consent_question_is_no_denial(agent):
    a = agent()
    a.coordinator.set_consent_responder(True).get()
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="echo hi"))
    run_id = a.coordinator.submit("type hi").get()
    seen: list = []
    next_consent(a, seen)
    a.coordinator.cancel(run_id).get(timeout=5)
    final, events = a.collect(run_id)
    assert isinstance(final, RunError) and final.reason == "cancelled"
    result = next(e.result for e in seen + events if isinstance(e, ToolEnd))
    assert "denied" not in result["error"] and "cancelled (no answer)" in result["error"], result


def test_a_cut_request_says_so_and_keeps_the_tabs_the_model_needs(agent):
    a = agent(BASH_TAB, num_ctx=2048, reply_tokens=256, reasoning="off")
    a.fake.script(Reply.action("done", message="read it"))
    prompt = "please look at this log:\n" + "".join(f"line {n:05d} of a very long paste\n" for n in range(700))
    assert len(prompt) > 20_000
    final, events = a.run(prompt)
    note = next(e.note for e in events if isinstance(e, Compacted))
    assert "older results" not in note, note  # there were none: the request itself was cut
    assert "your request was cut to " in note and f"of {len(prompt):,} characters" in note and "ctx 2,048" in note
    sent = a.fake.requests[0]["messages"][-1]["content"]
    assert sent.startswith("please look at this log:\nline 00000")
    assert sent.rstrip().endswith(")") and "(Tabs now: " in sent and "sh" in sent.split("(Tabs now: ")[1]
    assert not a.fake.overflows


def test_a_long_peer_message_keeps_its_start_and_a_screen_its_end():
    counter = TokenCounter()
    message = "ANSWER: 42. " + "because " * 3000 + "THE END"
    screen = "old output\n" * 2000 + "$ newest line"
    kept = Budget(500, counter.count).result({"ok": True, "peer_messages": [{"from": "Claude", "text": message}],
                                              "text": screen})
    assert counter.count(json.dumps(kept)) <= 500
    assert kept["peer_messages"][0]["text"].startswith("ANSWER: 42.")  # a message's point is at its start
    assert kept["text"].endswith("$ newest line")  # a screen's newest lines are at its end
