"""Turning model output into one action, the loop guards, error classification and the
think stripper: the pure pieces of the coordinator (issue 4)."""

from __future__ import annotations

import httpx
import ollama
import pytest

from tikitaka.protocol.guards import Guards, RunAborted
from tikitaka.protocol.llm_errors import MAX_ATTEMPTS, backoff, classify
from tikitaka.protocol.think import ThinkStripper
from tikitaka.protocol.toolcall import ArgumentError, FormatError, UnknownTool, parse_action

# -- parsing -------------------------------------------------------------------------------


def test_plain_action():
    action = parse_action('{"tool": "read_terminal", "args": {"tab": "sh"}}')
    assert (action.tool, action.args) == ("read_terminal", {"tab": "sh", "lines": 40})


def test_json_inside_prose_and_code_fences():
    text = 'Sure! Here it is:\n```json\n{"tool": "wait", "args": {"seconds": 2}}\n```\nDone.'
    assert parse_action(text).args == {"seconds": 2}


def test_prose_with_braces_before_the_action():
    assert parse_action('I will {maybe} do {"tool": "list_terminals", "args": {}}').tool == "list_terminals"


def test_arguments_as_a_json_string_and_the_function_call_shape():
    assert parse_action('{"tool": "wait", "args": "{\\"seconds\\": 3}"}').args == {"seconds": 3}
    assert parse_action('{"function": {"name": "done"}, "arguments": {"message": "hi"}}').args == {"message": "hi"}


def test_bare_message_is_repaired_into_done_only_when_allowed():
    action = parse_action('{"message": "all good"}')
    assert (action.tool, action.args, action.repaired) == ("done", {"message": "all good"}, True)
    with pytest.raises(FormatError, match='"tool"'):
        parse_action('{"message": "all good"}', allow_repair=False)


def test_non_identifier_tool_names_are_dropped():
    text = '[{"tool": "read terminal!", "args": {}}, {"tool": "list_terminals", "args": {}}]'
    assert parse_action(text).tool == "list_terminals"
    with pytest.raises(FormatError, match="no usable tool call"):
        parse_action('[{"tool": "read terminal!"}, {"tool": "$$"}]')
    with pytest.raises(FormatError):
        parse_action('{"tool": "read-terminal", "args": {}}')


def test_not_json_says_what_to_send():
    with pytest.raises(FormatError, match="not JSON") as info:
        parse_action("I think I should list the tabs")
    assert '{"tool": NAME, "args": {...}}' in str(info.value)
    with pytest.raises(FormatError, match="no usable tool call"):
        parse_action("[1, 2]")


def test_unknown_tool_lists_the_real_ones():
    with pytest.raises(UnknownTool, match="no tool named 'explode'; the tools are: list_terminals"):
        parse_action('{"tool": "explode", "args": {}}')


@pytest.mark.parametrize("text, words", [
    ('{"tool": "read_terminal", "args": {"tab": "sh", "lines": "many"}}', ["'lines'", "integer", '"many"']),
    ('{"tool": "read_terminal", "args": {"lines": 5}}', ["'tab' is required"]),
    ('{"tool": "wait", "args": {"seconds": 99}}', ["'seconds'", "30"]),
    ('{"tool": "done", "args": {"message": "x", "mood": "happy"}}', ["'mood' is not an argument"]),
    ('{"tool": "send_key", "args": {"tab": "sh", "key": "hyper"}}', ["'key'", "ctrl+a .. ctrl+z"]),
    ('{"tool": "wait", "args": [5]}', ["'args' must be a JSON object"]),
])
def test_argument_errors_are_plain_words(text, words):
    with pytest.raises(ArgumentError) as info:
        parse_action(text)
    message = str(info.value)
    for word in words:
        assert word in message
    assert "Traceback" not in message and "pydantic" not in message and "ValidationError" not in message


# -- guards --------------------------------------------------------------------------------


def test_turn_cap():
    guards = Guards(max_turns=12)
    for _ in range(12):
        guards.start_turn()
    with pytest.raises(RunAborted, match="12 model turns"):
        guards.start_turn()


def test_the_fourth_identical_call_is_blocked_and_three_blocks_abort():
    guards = Guards()
    same = parse_action('{"tool": "read_terminal", "args": {"tab": "sh", "lines": 5}}')
    assert [guards.check(same) for _ in range(3)] == [None, None, None]
    assert "blocked" in guards.check(same)
    assert "blocked" in guards.check(same)
    with pytest.raises(RunAborted, match="blocked 3 times"):
        guards.check(same)


def test_a_different_call_breaks_the_run_of_blocks():
    guards = Guards()
    same = parse_action('{"tool": "list_terminals", "args": {}}')
    other = parse_action('{"tool": "wait", "args": {"seconds": 1}}')
    for _ in range(3):
        guards.check(same)
    assert guards.check(same) and guards.check(same)
    assert guards.check(other) is None
    assert guards.check(same)  # still blocked, but the count of blocks in a row restarted
    assert guards.check(same)


def test_canonical_arguments_make_spelling_irrelevant():
    a = parse_action('{"tool": "read_terminal", "args": {"tab": "sh"}}')
    b = parse_action('{"args": {"lines": 40, "tab": "sh"}, "tool": "read_terminal"}')
    assert a.canonical() == b.canonical()


def test_two_corrections_then_abort_and_a_good_turn_resets_the_count():
    guards = Guards()
    guards.format_error()
    guards.format_error()
    guards.check(parse_action('{"tool": "list_terminals", "args": {}}'))
    guards.format_error()
    guards.format_error()
    with pytest.raises(RunAborted, match="did not parse 3 times"):
        guards.format_error()


def test_repair_is_allowed_once():
    guards = Guards()
    assert guards.may_repair()
    guards.check(parse_action('{"message": "x"}'))
    assert not guards.may_repair()


# -- error classification ------------------------------------------------------------------


def test_backoff_doubles_from_2_and_caps_at_30():
    assert [backoff(a) for a in range(6)] == [2, 4, 8, 16, 30, 30]
    assert MAX_ATTEMPTS == 5


def classify_(exc):
    return classify(exc, model="gemma3:4b", host="http://127.0.0.1:11434")


def test_404_is_final_and_names_the_pull_command():
    failure = classify_(ollama.ResponseError("model not found", 404))
    assert failure.final and "ollama pull gemma3:4b" in failure.message


def test_403_is_final():
    failure = classify_(ollama.ResponseError("forbidden", 403))
    assert failure.final and "403" in failure.message


@pytest.mark.parametrize("exc", [
    ollama.ResponseError("busy", 500), ollama.ResponseError("overloaded", 503),
    ollama.ResponseError("slow down", 429), ConnectionError("Failed to connect to Ollama"),
    httpx.ConnectError("refused"), httpx.ReadTimeout("timed out"), httpx.RemoteProtocolError("peer closed"),
    ConnectionResetError("reset by peer"), ollama.ResponseError("error in the stream"),
])
def test_retryable(exc):
    failure = classify_(exc)
    assert not failure.final and "127.0.0.1:11434" in failure.message


def test_other_client_errors_are_final():
    assert classify_(ollama.ResponseError("bad request", 400)).final


# -- think stripping -----------------------------------------------------------------------


def strip(chunks):
    stripper = ThinkStripper()
    return "".join(stripper.feed(c) for c in chunks) + stripper.flush()


@pytest.mark.parametrize("chunks", [
    ["<think>hmm</think>{\"a\": 1}"],
    ["<thi", "nk>hmm</th", "ink>{\"a\": 1}"],
    ["<", "t", "h", "i", "n", "k", ">", "x", "<", "/", "think", ">", "{\"a\"", ": 1}"],
    ["{\"a\"", "<think>inside</think>", ": 1}"],
])
def test_think_removed_even_when_tags_are_split(chunks):
    assert strip(chunks) == '{"a": 1}'


def test_text_that_only_looks_like_a_tag_start_is_kept():
    assert strip(["a <", "b", " <thin", "g"]) == "a <b <thing"
    assert strip(["ends with <th"]) == "ends with <th"


def test_an_unclosed_think_hides_the_rest():
    assert strip(["ok <think>never closed"]) == "ok "
