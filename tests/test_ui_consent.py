"""Consent over UI sessions (issue 13): the coordinator asks attached UIs before typing into a
shell tab; any of them may answer, the others see the question closed; a UI attaching later
is shown the open question; when the last UI leaves, the open question is denied at once."""

from __future__ import annotations

import json
import time

from fake_ollama import Reply
from ui_protocol_helpers import Session

from tikitaka.actors.coordinator.events import ToolEnd

TYPE_AND_FINISH = (Reply.action("send_to_terminal", tab="sh", text="echo consent-$((1+1))"),
                   Reply.action("done", message="finished"))


def _env(a) -> dict[str, str]:
    return {"TIKI_SOCKET": str(a.host.socket_path)}


def test_any_attached_ui_answers_and_the_others_see_it_closed(agent):
    a = agent()
    a.fake.script(*TYPE_AND_FINISH)
    first, second = Session(_env(a)), Session(_env(a))
    run_id = a.coordinator.submit("type it").get(timeout=5)
    question = first.next("consent")
    assert question["tab"] == "sh" and question["tool"] == "send_to_terminal"
    assert second.next("consent")["request_id"] == question["request_id"]
    third = Session(_env(a))  # attaching while the question is open: it is shown too
    assert [q["request_id"] for q in third.hello["consents"]] == [question["request_id"]]
    second.client.consent(question["request_id"], "once")
    for session in (first, third):
        assert session.next("consent_closed")["request_id"] == question["request_id"]
    final, _events = a.collect(run_id, timeout=30)
    assert final.message == "finished"
    sh = first.tabs["sh"]
    first.client.watch(sh)
    first.until_screen("consent-2")


def test_the_open_question_is_denied_when_the_last_ui_leaves(agent):
    a = agent()
    a.fake.script(*TYPE_AND_FINISH)
    ui = Session(_env(a))
    run_id = a.coordinator.submit("type it").get(timeout=5)
    ui.next("consent")
    left = time.monotonic()
    ui.client.close()  # detached (the terminal closed): nobody is left to answer
    final, events = a.collect(run_id, timeout=30)
    tool = next(e for e in events if isinstance(e, ToolEnd))
    assert "denied" in json.dumps(tool.result) and time.monotonic() - left < 10
    assert final.message == "finished"
    # and with no UI attached at all, a shell send is refused without asking
    a.fake.script(*TYPE_AND_FINISH)
    final, events = a.run("type it again")
    tool = next(e for e in events if isinstance(e, ToolEnd))
    assert "needs the user's consent" in json.dumps(tool.result)


def test_a_question_nobody_answers_lapses_after_the_configured_time(agent):
    """`consent_timeout` in [coordinator] (300 s unless set; it was fixed at 300): a UI that
    is attached but never answers leaves the run waiting that long, then it counts as no and
    every UI sees the question closed."""
    a = agent(consent_timeout=1.5)
    a.fake.script(*TYPE_AND_FINISH)
    ui = Session(_env(a))
    run_id = a.coordinator.submit("type it").get(timeout=5)
    question = ui.next("consent")
    asked = time.monotonic()
    assert ui.next("consent_closed")["request_id"] == question["request_id"]
    assert 1.0 < time.monotonic() - asked < 10
    final, events = a.collect(run_id, timeout=30)
    tool = next(e for e in events if isinstance(e, ToolEnd))
    assert "did not answer within 1.5 s" in json.dumps(tool.result)
    assert final.message == "finished"
