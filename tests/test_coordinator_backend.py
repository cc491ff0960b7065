"""One model turn over the real `ollama` client against the scripted fake server: request
shape, the `thinking` field, error lines inside the stream, native tools, host addresses."""

from __future__ import annotations

import threading

import pytest
from fake_ollama import Reply

from tikitaka.actors.coordinator.backends.ollama import LlmError, OllamaBackend, normalize_host
from tikitaka.protocol.catalogue import action_schema, native_tools
from tikitaka.protocol.settings import CoordinatorSettings

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def backend(fake, sleeps=None, **settings):
    return OllamaBackend(CoordinatorSettings(ollama_host=fake.url, **settings),
                         sleep=lambda s, cancel: (sleeps if sleeps is not None else []).append(s))


def turn(b, tabs=("sh",), **kwargs):
    progress = []
    output = b.chat(MESSAGES, schema=action_schema(list(tabs)), cancel=threading.Event(),
                    on_progress=lambda tokens, thinking: progress.append((tokens, thinking)),
                    tools=native_tools(list(tabs)), **kwargs)
    return output, progress


def test_request_shape_num_ctx_temperature_reply_budget_and_format(fake):
    fake.script(Reply.action("done", message="hi"))
    output, progress = turn(backend(fake, num_ctx=4096, reply_tokens=300))
    request = fake.requests[0]
    assert request["stream"] is True and "think" not in request and request["model"] == "gemma4:e4b"
    assert request["options"] == {"num_ctx": 4096, "temperature": 0.0, "num_predict": 300}
    assert "anyOf" in request["format"] and not request.get("tools")
    assert output.text == '{"tool": "done", "args": {"message": "hi"}}' and not output.cut_off
    assert len(progress) >= 3 and [p[0] for p in progress] == list(range(1, len(progress) + 1))  # per chunk
    assert output.prompt_tokens == 10


def test_reasoning_setting_becomes_think_only_for_models_that_think(fake):
    fake.script(Reply.action("done", message="a"), Reply.action("done", message="b"), Reply.action("done", message="c"))
    turn(backend(fake, reasoning="on"))  # the fake model lists no `thinking`: a 400 if we sent it
    assert "think" not in fake.requests[-1]
    fake.capabilities = ["completion", "thinking"]
    turn(backend(fake, reasoning="on"))
    assert fake.requests[-1]["think"] is True
    turn(backend(fake, reasoning="off"))
    assert fake.requests[-1]["think"] is False


def test_the_thinking_field_never_reaches_the_answer(fake):
    fake.script(Reply(thinking=["I could call ", "wait... no"], chunks=['{"tool": "list_terminals", "args": {}}']))
    fake.capabilities = ["completion", "thinking"]
    output, progress = turn(backend(fake, reasoning="on"))
    assert fake.requests[0]["think"] is True
    assert output.text == '{"tool": "list_terminals", "args": {}}'
    assert progress == [(0, 1), (0, 2), (1, 2)]  # thinking is progress, counted apart
    assert output.thinking == "I could call wait... no"


def test_an_error_line_before_any_output_is_retried(fake):
    sleeps = []
    fake.script(Reply(chunks=["x"], error_after=0, error="llama runner crashed"), Reply.action("wait", seconds=2))
    output, _ = turn(backend(fake, sleeps))
    assert '"wait"' in output.text and sleeps == [2.0] and len(fake.requests) == 2


def test_an_error_line_after_output_is_final_and_not_retried(fake):
    sleeps = []
    fake.script(Reply(chunks=['{"tool": ', '"done"'], error_after=1, error="llama runner crashed"),
                Reply.action("done", message="never"))
    with pytest.raises(LlmError, match="not retried") as info:
        turn(backend(fake, sleeps))
    assert "llama runner crashed" in str(info.value)
    assert sleeps == [] and len(fake.requests) == 1


def test_native_tools_only_when_asked_for_and_the_model_can(fake):
    # asked for, but the model does not list the capability: format, not tools
    fake.script(Reply.action("list_terminals"))
    turn(backend(fake, native_tools=True))
    assert fake.requests[-1].get("format") and not fake.requests[-1].get("tools")
    # asked for and capable: tools, never format as well
    fake.capabilities = ["completion", "tools"]
    fake.script(Reply(tool_calls=[{"function": {"name": "read_terminal", "arguments": {"tab": "sh", "lines": 5}}}]))
    output, _ = turn(backend(fake, native_tools=True))
    request = fake.requests[-1]
    assert {t["function"]["name"] for t in request["tools"]} >= {"read_terminal", "done"}
    assert not request.get("format")
    assert output.text == '{"tool": "read_terminal", "args": {"tab": "sh", "lines": 5}}'
    # capable but not asked for: format
    fake.script(Reply.action("list_terminals"))
    turn(backend(fake))
    assert fake.requests[-1].get("format") and not fake.requests[-1].get("tools")


def test_cancel_during_backoff_is_immediate(fake):
    cancel = threading.Event()
    b = OllamaBackend(CoordinatorSettings(ollama_host=fake.url))  # the real sleep: waits on `cancel`
    fake.script(Reply(status=500))
    threading.Timer(0.2, cancel.set).start()
    from tikitaka.actors.coordinator.backends.ollama import Cancelled

    with pytest.raises(Cancelled):
        b.chat(MESSAGES, schema=None, cancel=cancel, on_progress=lambda n, t: None)
    assert len(fake.requests) == 1  # it did not go on to a second attempt


def test_model_check_for_doctor(fake):
    assert backend(fake).check() == (True, f"{fake.url} has gemma4:e4b")
    present, detail = backend(fake, model="qwen3:8b").check()
    assert not present and "ollama pull qwen3:8b" in detail


@pytest.mark.parametrize("value, url", [
    (None, "http://127.0.0.1:11434"), ("", "http://127.0.0.1:11434"),
    ("0.0.0.0", "http://0.0.0.0:11434"), ("gpu-box:8080", "http://gpu-box:8080"),
    (":9999", "http://127.0.0.1:9999"), ("https://ollama.example.com/", "https://ollama.example.com:443"),
    ("http://10.0.0.5:11434", "http://10.0.0.5:11434"),
])
def test_ollama_host_is_read_as_ollama_reads_it(value, url):
    assert normalize_host(value) == url
