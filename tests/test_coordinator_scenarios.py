"""Scripted scenarios that every backend must pass: the fake Ollama and the fake
OpenAI-compatible server, through their real client libraries, driving real tabs (issue 10).

Errors (final or retried), timers, cut-offs, corrections, oversized results and compaction.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import BASH_TAB, wait_until
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import (
    Compacted,
    Correction,
    Generating,
    RunDone,
    RunError,
    ToolEnd,
    TurnStarted,
)

BACKENDS = ["ollama", "openai"]
PEER_TAB = '[[tab]]\nname = "Claude"\ncommand = ["cat"]\nrole = "peer"\n'


@pytest.fixture(params=BACKENDS)
def scenario(request, agent):
    if request.param == "openai":
        pytest.importorskip("openai", reason="the OpenAI-compatible backend's client (the test extra has it)")
    return lambda workspace=BASH_TAB, **settings: agent(workspace, backend=request.param, **settings)


def ends(events):
    return [e for e in events if isinstance(e, ToolEnd)]


def test_a_run_acts_on_a_real_shell_and_reports_its_figures(scenario):
    a = scenario(allow_shell=True)
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="echo agent-$((40+2))"), Reply.action("wait", seconds=1),
                  Reply.action("read_terminal", tab="sh", lines=10), Reply.action("done", message="it printed agent-42"))
    final, events = a.run("print 42 in the shell")
    assert isinstance(final, RunDone) and final.message == "it printed agent-42"
    assert "agent-42" in ends(events)[2].result["text"]
    assert final.turns == 4 and final.tokens > 0 and final.seconds > 0
    turns = [e for e in events if isinstance(e, TurnStarted)]
    assert [t.turn for t in turns] == [1, 2, 3, 4] and all(t.prompt_tokens > 100 for t in turns)
    finals = [e for e in events if isinstance(e, Generating) and e.final]
    assert len(finals) == 4 and all(f.tokens > 0 and f.rate > 0 for f in finals)
    # the reply budget: room for the longest action, and for reasoning where the model may reason
    # (the fake Ollama model lists no `thinking`; an OpenAI-compatible server's model may think)
    assert a.reply_budget(a.fake.requests[0]) == (512 if a.backend == "ollama" else 512 + 1024)


@pytest.mark.parametrize("status, words", [(404, "not available"), (403, "403"), (401, "401")])
def test_final_errors_are_not_retried_and_say_what_to_fix(scenario, status, words):
    a = scenario()
    a.fake.script(Reply(status=status, error="nope"))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and words in final.reason
    assert len(a.fake.requests) == 1 and a.sleeps == []


@pytest.mark.parametrize("status", [429, 500, 503])
def test_busy_or_broken_servers_are_retried_with_backoff(scenario, status):
    a = scenario()
    a.fake.script(Reply(status=status), Reply(status=status), Reply.action("done", message="third time"))
    final, _ = a.run("hi")
    assert isinstance(final, RunDone) and final.message == "third time"
    assert a.sleeps == [2.0, 4.0]


def test_a_reply_that_broke_off_after_it_started_is_not_retried(scenario):
    a = scenario()
    a.fake.script(Reply(chunks=['{"tool": ', '"done"'], error_after=1, error="runner crashed"))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "not retried" in final.reason and len(a.fake.requests) == 1


def test_first_token_timeout_is_apart_from_the_idle_timeout(scenario):
    # a slow start (a model loading, a long prompt) is fine; silence once the reply flows is not
    a = scenario(idle_timeout=0.5, first_token_timeout=5)
    a.fake.script(Reply(chunks=Reply.action("done", message="slow start").chunks, first_delay=1.5))
    final, _ = a.run("hi")
    assert isinstance(final, RunDone) and final.message == "slow start"
    a.fake.script(Reply(chunks=['{"tool"'], stall_after=1, stall_for=3))
    final, _ = a.run("again")
    assert isinstance(final, RunError) and "idle timeout" in final.reason


def test_a_cut_off_reply_gets_its_own_correction_and_a_shorter_varied_retry(scenario):
    a = scenario()
    a.fake.script(Reply(chunks=['{"tool": "done", "args": {"message": "a very long ans'], done_reason="length"),
                  Reply.action("done", message="short"))
    final, events = a.run("tell me everything")
    assert isinstance(final, RunDone) and final.message == "short"
    correction = next(e for e in events if isinstance(e, Correction))
    assert correction.cause.startswith("cut off at") and "cut off" in correction.message
    first, retry = a.fake.requests
    assert "a very long ans" not in json.dumps(retry["messages"])  # the cut reply left the history
    assert "cut off" in retry["messages"][-1]["content"]
    assert retry["messages"][:-1] == first["messages"][:-1]  # the prefix (and its cache) survives
    assert a.temperature(first) == 0 and a.temperature(retry) > 0
    done = lambda r: next(v for v in a.schema(r)["anyOf"] if v["properties"]["tool"]["enum"] == ["done"])  # noqa: E731
    length = lambda r: done(r)["properties"]["args"]["properties"]["message"]["maxLength"]  # noqa: E731
    assert length(retry) == length(first) // 2
    # the correction was for that retry only: the conversation holds the answer, not the note
    assert "cut off" not in json.dumps(a.coordinator.messages().get())


def test_an_unparseable_reply_is_dropped_and_corrected(scenario):
    a = scenario()
    a.fake.script(Reply(chunks=["I think I should list the tabs"]), Reply.action("done", message="ok"))
    final, events = a.run("hi")
    assert isinstance(final, RunDone)
    assert next(e for e in events if isinstance(e, Correction)).cause == "not JSON"
    assert "I think" not in json.dumps(a.fake.requests[1]["messages"])


def test_a_megabyte_read_terminal_result_fits_the_window_and_the_run_goes_on(scenario):
    # a wide tab full of output, and a peer's 0.9 MB message riding on the same result
    wide = BASH_TAB + PEER_TAB
    a = scenario(wide, allow_shell=True, num_ctx=4096)
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="for i in $(seq 400); do printf 'line %04d %0100d\\n' $i 0; done"),
                  Reply.action("wait", seconds=1), Reply.action("read_terminal", tab="sh", lines=200),
                  Reply.action("done", message="read it"))
    run_id = a.coordinator.submit("read the shell").get(timeout=5)
    wait_until(lambda: a.fake.requests, what="the run's first turn")
    a.coordinator.peer_message("Claude", "y" * 900_000, True).get(timeout=5)
    final, events = a.collect(run_id)
    assert isinstance(final, RunDone) and final.message == "read it"
    big = next(e for e in ends(events) if "peer_messages" in e.result)
    assert len(json.dumps(big.result)) < 30_000  # from over 1 MB
    assert len(big.result["peer_messages"][0]["text"]) < 20_000  # cut, and says so
    assert "characters left out to fit the context" in big.result["peer_messages"][0]["text"]
    read = next(e for e in ends(events) if e.tool == "read_terminal")
    assert "older lines were left out" in read.result["left_out"] and "line 0400 " in read.result["text"]
    assert "line 0001 " not in read.result["text"]  # the most recent lines are the ones kept
    assert a.fake.overflows == []  # no request exceeded the window, by the server's own count


def test_thirty_asks_in_one_session_never_fail_on_context(scenario):
    a = scenario(allow_shell=True, num_ctx=2048, reply_tokens=256, reasoning="off")
    for n in range(30):
        a.fake.script(Reply.action("read_terminal", tab="sh", lines=200), Reply.action("done", message=f"answer {n}"))
        final, events = a.run(f"question {n}: " + "context " * 60)
        assert isinstance(final, RunDone) and final.message == f"answer {n}", final
    assert a.fake.overflows == []
    compactions = [e for e in events if isinstance(e, Compacted)]
    messages = a.coordinator.messages().get()
    roles = [m["role"] for m in messages]
    assert roles[0] == "system" and all(x != y for x, y in zip(roles[1:], roles[2:]))  # they alternate
    assert "Earlier in this session" in messages[0]["content"] or compactions


def test_a_prompt_the_backend_refuses_as_too_long_is_compacted_and_retried(scenario):
    a = scenario(allow_shell=True)
    for _ in range(4):
        a.fake.script(Reply.action("read_terminal", tab="sh", lines=200), Reply.action("done", message="ok"))
        a.run("read " + "padding " * 400)
    if a.backend == "ollama":
        a.fake.script(Reply(status=400, error="context window exceeded: the prompt has 9000 tokens"))
    else:
        a.fake.script(Reply(status=400, error="This model's maximum context length is 8192 tokens"))
    a.fake.script(Reply.action("done", message="fits now"))
    final, events = a.run("and now?")
    assert isinstance(final, RunDone) and final.message == "fits now"
    assert any(isinstance(e, Compacted) for e in events)
    assert next(e for e in events if isinstance(e, Correction)).cause.startswith("prompt too long")


def test_after_a_failed_run_the_next_ask_works(scenario):
    a = scenario()
    a.fake.script(Reply(status=404))
    assert isinstance(a.run("first")[0], RunError)
    a.fake.script(Reply.action("done", message="second works"))
    final, _ = a.run("second")
    assert isinstance(final, RunDone) and final.message == "second works"
    messages = a.fake.requests[-1]["messages"]
    # the failed run was taken back (no dangling turn, no made-up answer to copy) and the next
    # request says in one line what happened
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"].startswith("(Your previous request 'first' did not finish: model 'gemma4:e4b'")
    assert "\n\nsecond\n\n(Tabs now:" in messages[1]["content"]


def test_a_looping_model_is_moved_on_rather_than_blocked(scenario):
    a = scenario()
    a.fake.script(*[Reply.action("list_terminals") for _ in range(3)], Reply.action("done", message="moved on"))
    final, _ = a.run("list")
    assert isinstance(final, RunDone)
    tools = lambda r: {v["properties"]["tool"]["enum"][0] for v in a.schema(r)["anyOf"]}  # noqa: E731
    assert "list_terminals" in tools(a.fake.requests[2]) and "list_terminals" not in tools(a.fake.requests[3])


def test_done_for_a_named_peer_never_asked_is_bounced_once(scenario):
    a = scenario(BASH_TAB + PEER_TAB)
    a.fake.script(Reply.action("done", message="42"), Reply.action("done", message="still 42"))
    final, events = a.run("ask Claude what 6 times 7 is")
    assert isinstance(final, RunDone) and final.message == "still 42"  # once, not forever
    assert final.unasked == ["Claude"]  # and the answer says it is not Claude's
    bounce = next(e for e in events if isinstance(e, Correction))
    assert "you have not asked Claude yet" in bounce.message
    # a request that names no peer is answered at once
    a.fake.script(Reply.action("done", message="hello"))
    final, events = a.run("say hello")
    assert final.message == "hello" and not [e for e in events if isinstance(e, Correction)]
    assert final.unasked == []


def test_an_answer_that_copies_tikitakas_own_words_is_sent_back_once(scenario):
    # SmolLM2 in the field answered with the bounce's own text ("not done: you have not asked
    # Claude yet. ..."), and copied it again as its answer to the next, unrelated request.
    a = scenario(BASH_TAB + PEER_TAB)
    echo = "not done: you have not asked Claude yet. send_to_terminal the question to Claude"
    a.fake.script(Reply.action("done", message=echo), Reply.action("done", message="the sh tab shows a prompt"))
    final, events = a.run("read the sh tab")
    assert isinstance(final, RunDone) and final.message == "the sh tab shows a prompt"
    sent_back = [e for e in events if isinstance(e, Correction)]
    assert [e.cause for e in sent_back] == ["copied tikitaka's words"]
    assert "not your answer" in sent_back[0].message
    # once per run: a second copy is the answer (a run must end), and words of its own never bounce
    a.fake.script(Reply.action("done", message="blocked: nothing"), Reply.action("done", message="blocked: nothing"))
    final, _ = a.run("again")
    assert final.message == "blocked: nothing"
    a.fake.script(Reply.action("done", message="not sure: the tab is empty"))
    final, events = a.run("and now")
    assert final.message == "not sure: the tab is empty" and not [e for e in events if isinstance(e, Correction)]


def test_a_shell_prompt_is_marked_as_a_prompt(scenario):
    a = scenario(allow_shell=True)
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="echo hi-there"), Reply.action("wait", seconds=1),
                  Reply.action("read_terminal", tab="sh", lines=5), Reply.action("done", message="ok"))
    _, events = a.run("read")
    read = ends(events)[-1].result
    assert "[prompt] echo hi-there" in read["text"] and read["text"].rstrip().endswith("[prompt]")
    assert "never type it" in read["prompt"]


def test_a_placeholder_copied_from_the_examples_is_corrected(scenario):
    a = scenario()
    a.fake.script(Reply.action("done", message="<your answer to the user>"), Reply.action("done", message="hello"))
    final, events = a.run("say hello")
    assert isinstance(final, RunDone) and final.message == "hello"
    assert next(e for e in events if isinstance(e, Correction)).cause == "placeholder copied"


def test_native_tool_calls_when_asked_for(agent):
    pytest.importorskip("openai")
    a = agent(BASH_TAB, backend="openai", native_tools=True)
    a.fake.script(Reply(tool_calls=[{"function": {"name": "read_terminal", "arguments": {"tab": "sh", "lines": 5}}}]),
                  Reply(tool_calls=[{"function": {"name": "done", "arguments": {"message": "read it"}}}]))
    final, events = a.run("read sh")
    assert isinstance(final, RunDone) and final.message == "read it"
    assert ends(events)[0].tool == "read_terminal" and ends(events)[0].args == {"tab": "sh", "lines": 5}
    request = a.fake.requests[0]
    assert {t["function"]["name"] for t in request["tools"]} >= {"read_terminal", "done"}
    assert "response_format" not in request  # never a schema and tools together


def test_runs_folded_away_are_remembered_by_their_answers(scenario):
    a = scenario(num_ctx=2048, reply_tokens=256, reasoning="off")
    for n in range(12):
        a.fake.script(Reply.action("done", message=f"the answer to {n} is {n * n}"))
        assert isinstance(a.run(f"what is {n} squared? " + "please " * 60)[0], RunDone)
    system = a.coordinator.messages().get()[0]["content"]
    assert "Earlier in this session" in system and "squared? please please" in system
    assert re.search(r"-> the answer to \d+ is \d+", system)  # remembered by its answer, not "(no answer)"
