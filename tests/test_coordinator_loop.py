"""The coordinator's loop against a scripted fake Ollama through the real `ollama` client,
driving a real bash tab (issue 4)."""

from __future__ import annotations

import json
import time

from conftest import BASH_TAB, wait_until
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import Correction, Generating, RunDone, RunError, ToolEnd
from tikitaka.protocol import paths

PEER_TAB = '[[tab]]\nname = "Claude"\ncommand = ["cat"]\nrole = "peer"\n'




def tool_ends(events):
    return [e for e in events if isinstance(e, ToolEnd)]


def test_full_run_list_send_wait_read_done_on_a_real_bash_tab(agent):
    a = agent(BASH_TAB, allow_shell=True)
    a.fake.script(
        Reply.action("list_terminals"),
        Reply.action("send_to_terminal", tab="sh", text="echo agent-$((40+2))"),
        Reply.action("wait", seconds=1),
        Reply.action("read_terminal", tab="sh", lines=10),
        Reply.action("done", message="the tab printed agent-42"),
    )
    final, events = a.run("print 42 in the shell")
    assert isinstance(final, RunDone) and final.message == "the tab printed agent-42"
    ends = tool_ends(events)
    assert [e.tool for e in ends] == ["list_terminals", "send_to_terminal", "wait", "read_terminal"]
    assert ends[0].result["terminals"][0]["name"] == "sh"
    assert "agent-42" in ends[3].result["text"]
    assert any(isinstance(e, Generating) for e in events)
    # every request constrained the output to the catalogue, with the tab names as an enum
    request = a.fake.requests[0]
    assert request["options"]["num_ctx"] == 8192 and request["options"]["temperature"] == 0
    variants = request["format"]["anyOf"]
    assert {v["properties"]["tool"]["enum"][0] for v in variants} == {
        "list_terminals", "read_terminal", "send_to_terminal", "send_key", "wait", "done"}
    read = next(v for v in variants if v["properties"]["tool"]["enum"] == ["read_terminal"])
    assert read["properties"]["args"]["properties"]["tab"]["enum"] == ["sh"]
    assert not request.get("tools")  # never format and tools together
    # the conversation grows append-only: each request starts with the previous one's messages
    for before, after in zip(a.fake.requests, a.fake.requests[1:]):
        assert after["messages"][: len(before["messages"])] == before["messages"]
    transcript = list((a.host.event_log.path.parent / "transcripts").glob(f"runs{paths.host_tag(a.host.socket_path)}-*.jsonl"))
    record = json.loads(transcript[0].read_text().splitlines()[-1])
    assert record["outcome"] == "done" and len(record["turns"]) == 5


def test_unknown_tab_is_a_result_the_model_can_act_on(agent):
    a = agent()
    a.fake.script(Reply.action("read_terminal", tab="Claud"), Reply.action("done", message="ok"))
    final, events = a.run("read Claud")
    assert isinstance(final, RunDone)
    assert tool_ends(events)[0].result == {"ok": False, "error": "no tab named 'Claud'; tabs are: sh"}


def test_shell_tab_needs_consent_headless(agent):
    a = agent()
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="touch /tmp/should-not-exist"),
                  Reply.action("done", message="refused"))
    final, events = a.run("do it")
    result = tool_ends(events)[0].result
    assert result["ok"] is False and "--allow-shell" in result["error"]
    assert "touch" not in a.host.workspace.get("sh").get().terminal.read_text(20).get()["text"]
    # with --allow-shell the same run types
    a.fake.script(Reply.action("send_to_terminal", tab="sh", text="echo allowed-$((1+1))"),
                  Reply.action("done", message="typed"))
    final, events = a.run("do it", allow_shell=True)
    assert tool_ends(events)[0].result["ok"] is True


def test_404_is_final_and_names_the_pull_command(agent):
    a = agent()
    a.fake.script(Reply(status=404, error="model 'gemma4:e4b' not found"))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "ollama pull gemma4:e4b" in final.reason
    assert len(a.fake.requests) == 1 and a.sleeps == []


def test_403_is_final(agent):
    a = agent()
    a.fake.script(Reply(status=403, error="forbidden"))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "403" in final.reason and len(a.fake.requests) == 1


def test_two_500s_then_success_backs_off_2_then_4_seconds(agent):
    a = agent()
    a.fake.script(Reply(status=500), Reply(status=500), Reply.action("done", message="third time"))
    final, _ = a.run("hi")
    assert isinstance(final, RunDone) and final.message == "third time"
    assert a.sleeps == [2.0, 4.0]


def test_five_failures_give_up_naming_the_server(agent):
    a = agent()
    a.fake.script(*[Reply(status=503, error="overloaded")] * 5)
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and a.fake.url in final.reason and "overloaded" in final.reason
    assert a.sleeps == [2.0, 4.0, 8.0, 16.0]


def test_connection_refused_retries_then_fails(agent, tmp_path):
    a = agent(ollama_host="http://127.0.0.1:9")
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "127.0.0.1:9" in final.reason
    assert a.sleeps == [2.0, 4.0, 8.0, 16.0]


def test_mid_stream_error_after_partial_output_is_not_retried(agent):
    a = agent()
    a.fake.script(Reply(chunks=['{"tool": "li', 'st_terminals"'], disconnect_after=1),
                  Reply.action("done", message="should never be asked"))
    final, events = a.run("hi")
    assert isinstance(final, RunError) and "not retried" in final.reason
    assert len(a.fake.requests) == 1
    assert [e.tokens for e in events if isinstance(e, Generating)] == [1]


def test_idle_stall_times_out(agent):
    a = agent(idle_timeout=0.5)
    a.fake.script(Reply(chunks=['{"tool"', ': "done"'], stall_after=1, stall_for=5))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "idle timeout" in final.reason


def test_whole_turn_deadline(agent):
    a = agent(idle_timeout=5, turn_deadline=1)
    a.fake.script(Reply(chunks=[" "] * 40, delay=0.1))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "deadline" in final.reason


def test_malformed_json_then_a_correction(agent):
    a = agent()
    a.fake.script(Reply(chunks=["I think I should list the tabs"]), Reply.action("done", message="fixed"))
    final, events = a.run("hi")
    assert isinstance(final, RunDone) and final.message == "fixed"
    corrections = [e for e in events if isinstance(e, Correction)]
    assert len(corrections) == 1 and "not JSON" in corrections[0].message
    assert "Correction:" in a.fake.requests[1]["messages"][-1]["content"]


def test_three_unparseable_turns_end_the_run(agent):
    a = agent()
    a.fake.script(*[Reply(chunks=["nope"])] * 3)
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "did not parse" in final.reason
    assert len(a.fake.requests) == 3


def test_unknown_tool_and_wrong_argument_types_get_plain_corrections(agent):
    a = agent()
    a.fake.script(Reply.action("explode"), Reply.action("read_terminal", tab="sh", lines="many"),
                  Reply.action("done", message="ok"))
    final, events = a.run("hi")
    messages = [e.message for e in events if isinstance(e, Correction)]
    assert "no tool named 'explode'" in messages[0]
    assert "'lines'" in messages[1] and "integer" in messages[1] and "Traceback" not in messages[1]
    assert isinstance(final, RunDone)


def test_bare_message_is_repaired_into_done_once(agent):
    a = agent()
    a.fake.script(Reply(chunks=['{"message": "the answer"}']))
    final, _ = a.run("hi")
    assert isinstance(final, RunDone) and final.message == "the answer"


def test_repeat_loop_is_blocked_then_aborted(agent):
    a = agent()
    a.fake.script(*[Reply.action("read_terminal", tab="sh", lines=5)] * 6)
    final, events = a.run("loop")
    results = [e.result for e in tool_ends(events)]
    assert [r["ok"] for r in results[:3]] == [True, True, True]
    assert all("blocked" in r["error"] for r in results[3:])
    assert isinstance(final, RunError) and "blocked 3 times" in final.reason


def test_turn_cap(agent):
    a = agent(max_turns=3)
    a.fake.script(Reply.action("wait", seconds=1), Reply.action("list_terminals"),
                  Reply.action("read_terminal", tab="sh"), Reply.action("done", message="late"))
    final, _ = a.run("hi")
    assert isinstance(final, RunError) and "3 model turns" in final.reason


def test_think_tags_split_across_chunks_are_removed(agent):
    a = agent()
    a.fake.script(Reply(chunks=["<thi", "nk>I should say {\"tool\":\"wait\"}</th", "ink>",
                                '{"tool": "done", "args": {"message": "clean"}}']))
    final, _ = a.run("hi")
    assert isinstance(final, RunDone) and final.message == "clean"
    assert "think" not in a.coordinator.messages().get()[-1]["content"]


def test_cancel_during_generation_is_immediate(agent):
    a = agent()
    a.fake.script(Reply(chunks=["{"], stall_after=1, stall_for=20))
    run_id = a.coordinator.submit("hi").get()
    wait_until(lambda: a.coordinator.status().get()["state"] == "running" and a.fake.requests, what="generating")
    started = time.monotonic()
    assert a.coordinator.cancel().get(timeout=2) is True
    final, _ = a.collect(run_id, timeout=5)
    assert isinstance(final, RunError) and final.reason == "cancelled"
    assert time.monotonic() - started < 3  # well under the 20 s stall
    assert a.coordinator.status().get(timeout=2)["state"] == "idle"


def test_status_answers_while_generating_and_reset_forgets(agent):
    a = agent()
    a.fake.script(Reply(chunks=['{"tool": "done", ', '"args": {"message": "slow"}}'], delay=0.5))
    run_id = a.coordinator.submit("first").get()
    wait_until(lambda: a.fake.requests, what="request sent")
    assert a.coordinator.status().get(timeout=1)["state"] == "running"  # answered mid-turn
    a.collect(run_id)
    assert len(a.coordinator.messages().get()) == 3  # system, user, assistant
    a.coordinator.reset().get()
    assert [m["role"] for m in a.coordinator.messages().get()] == ["system"]
    a.fake.script(Reply.action("done", message="fresh"))
    final, _ = a.run("second")
    assert [m["role"] for m in a.fake.requests[-1]["messages"]] == ["system", "user"]


def test_transcripts_older_than_the_kept_days_are_removed_when_a_day_starts(agent):
    # Every run is kept a while (a user looks back at what the coordinator did), not forever:
    # a year of daily runs with their tool results would fill the state directory unasked.
    # A host on another socket keeps its own days (its event log's tag): they are its to prune.
    a = agent(transcript_days=3)
    folder = a.host.event_log.path.parent / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    today = time.time()
    ours = f"runs{paths.host_tag(a.host.socket_path)}-%Y-%m-%d.jsonl"
    names = {days: time.strftime(ours, time.localtime(today - days * 86400)) for days in (1, 2, 3, 4, 40)}
    for name in names.values():
        (folder / name).write_text('{"outcome": "done"}\n')
    other = time.strftime(f"runs{paths.host_tag(a.host.socket_path.with_name('other.sock'))}-%Y-%m-%d.jsonl",
                          time.localtime(today - 40 * 86400))
    (folder / other).write_text('{"outcome": "done"}\n')
    (folder / "notes.txt").write_text("mine")  # not ours: left alone
    a.fake.script(Reply.action("done", message="ok"))
    final, _ = a.run("anything")
    assert isinstance(final, RunDone)
    kept = sorted(p.name for p in folder.iterdir())
    assert kept == sorted([names[1], names[2], names[3], other, "notes.txt", time.strftime(ours)])


def test_transcript_days_zero_keeps_every_transcript(agent):
    a = agent(transcript_days=0)
    folder = a.host.event_log.path.parent / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    old = f"runs{paths.host_tag(a.host.socket_path)}-2001-01-01.jsonl"
    (folder / old).write_text('{"outcome": "done"}\n')
    a.fake.script(Reply.action("done", message="ok"))
    a.run("anything")
    assert (folder / old).exists()


def test_a_run_cancelled_mid_generation_counts_what_it_generated(agent):
    """Cancelled while generating, a run ended `stopped · 1 turn · 0 tok` just after its status
    line said `generating 32 tok` (a field tester, in the panel): the cut-short turn's tokens
    were never added."""
    a = agent()
    a.fake.script(Reply(chunks=['{"tool": "done", ', '"args": {"message": ', '"never'], stall_after=3, stall_for=20))
    run_id = a.coordinator.submit("hi").get()
    wait_until(lambda: a.fake.requests, what="generating")
    deadline = time.monotonic() + 10
    while True:  # until its status line shows tokens generated
        event = a.events.get(timeout=max(0.1, deadline - time.monotonic()))
        if isinstance(event, Generating) and event.run_id == run_id and event.tokens > 0:
            break
    assert a.coordinator.cancel().get(timeout=2) is True
    final, _ = a.collect(run_id, timeout=5)
    assert isinstance(final, RunError) and final.reason == "cancelled"
    assert final.tokens > 0, final
