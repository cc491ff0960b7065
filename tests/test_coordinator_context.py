"""The conversation's budget, piece by piece: counting, compaction, result budgets, prompts."""

from __future__ import annotations

import json

import pytest

from tikitaka.actors.coordinator.context import ContextTooSmall, Conversation, TokenCounter
from tikitaka.actors.coordinator.results import Budget, mark_prompt, summarize


def session(runs: int, result_size: int) -> Conversation:
    conv = Conversation("You are the coordinator. " * 20)
    for n in range(runs):
        conv.add("user", f"request {n}\n\n(Tabs now: sh (shell))", "request")
        conv.add("assistant", '{"tool": "read_terminal", "args": {"tab": "sh"}}', "action")
        conv.add("user", "Result of read_terminal: " + json.dumps({"ok": True, "text": f"out {n} " * result_size}),
                 "result", summarize("read_terminal", {"tab": "sh"}, {"ok": True, "text": f"out {n}"}))
        conv.add("assistant", json.dumps({"tool": "done", "args": {"message": f"answer {n}"}}), "answer", f"answer {n}")
    return conv


def test_compaction_keeps_the_system_prompt_the_request_and_recent_turns():
    counter = TokenCounter()
    conv = session(8, 300)
    before = conv.tokens(counter)
    done = conv.compact(counter, before // 3)
    assert done is not None and done[0] == before and done[1] <= before // 3
    messages = conv.messages()
    assert messages[0]["content"].startswith("You are the coordinator.")
    assert messages[-1]["content"].startswith('{"tool": "done", "args": {"message": "answer 7"}}')
    text = json.dumps(messages)
    assert "shortened to fit the context" in text  # the model is told
    roles = [m["role"] for m in messages]
    assert all(x != y for x, y in zip(roles[1:], roles[2:]))  # still alternating


def test_whole_old_runs_fold_into_one_line_each_in_the_system_prompt():
    counter = TokenCounter()
    conv = session(12, 50)
    conv.add("user", "the current request\n\n(Tabs now: sh)", "request")
    conv.compact(counter, 700)
    system = conv.messages()[0]["content"]
    assert "Earlier in this session" in system and "- asked 'request 0' -> answer 0" in system  # oldest first
    assert conv.messages()[-1]["content"].startswith("the current request")
    assert conv.tokens(counter) <= 700


def test_a_huge_request_is_cut_and_says_so_and_a_tiny_window_is_an_error():
    counter = TokenCounter()
    conv = Conversation("system")
    conv.add("user", "x" * 1_000_000, "request")
    conv.compact(counter, 2000)
    assert conv.tokens(counter) <= 2000 and "characters left out" in conv.messages()[-1]["content"]
    big = Conversation("s" * 30_000)
    with pytest.raises(ContextTooSmall):
        big.compact(counter, 1000)


def test_a_megabyte_screen_keeps_its_most_recent_lines():
    counter = TokenCounter()
    text = "\n".join(f"line {n:06d} " + "z" * 90 for n in range(10_000))  # ~1 MB
    assert len(text) > 1_000_000
    kept, left_out = Budget(1000, counter.count).lines(text)
    assert counter.count(kept) <= 1000 and kept.endswith("line 009999 " + "z" * 90)
    assert left_out == 10_000 - len(kept.split("\n"))
    one_line, _ = Budget(100, counter.count).lines("q" * 1_000_000)  # no line breaks at all
    assert counter.count(one_line) <= 100 and one_line.startswith("…")


def test_estimates_learn_from_what_the_backend_counted():
    counter = TokenCounter()
    assert counter.count("a" * 300) == 100 and counter.count("한국어") == 3  # other scripts: a token each
    counter.calibrate(estimated=100, reported=50, total=False)  # a cached count: only a floor
    assert counter.scale == 1.0
    counter.calibrate(estimated=100, reported=150, total=False)
    assert counter.scale == 1.5
    counter.calibrate(estimated=150, reported=75, total=True)  # a total is the truth
    assert counter.scale == 0.75


def test_shell_prompts_are_marked_and_other_screens_are_left_alone():
    text, prompt = mark_prompt("bash-5.2$ echo hi\nhi\nbash-5.2$", 10)
    assert text == "[prompt] echo hi\nhi\n[prompt]" and prompt == "bash-5.2$"
    text, prompt = mark_prompt("(.venv) ls\nREADME.md\n(.venv)", 8)  # learnt from repetition
    assert text.endswith("[prompt]") and prompt == "(.venv)"
    assert mark_prompt("Downloading 45%", 15) == ("Downloading 45%", None)
    assert mark_prompt("user@box:~$ vim x\n~\n~", 0)[1] is None  # the last line is not a prompt
