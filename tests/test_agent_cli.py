"""`tiki ask` and `tiki status` against `tiki serve`, the coordinator on a fake Ollama."""

from __future__ import annotations

import json

import pytest

from conftest import BASH_TAB
from fake_ollama import FakeOllama, Reply


@pytest.fixture
def fake():
    server = FakeOllama()
    yield server
    server.close()


def test_ask_streams_progress_and_prints_the_answer(serve, tiki_env, fake):
    env = {**tiki_env, "OLLAMA_HOST": fake.url, "TIKI_BACKEND": "ollama"}
    host = serve(BASH_TAB, env=env)
    fake.script(Reply.action("list_terminals"), Reply.action("done", message="one tab: sh, idle"))
    result = host.run("ask", "What", "tabs", "are", "there?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "one tab: sh, idle"
    assert "→ list_terminals" in result.stderr and "← list_terminals" in result.stderr
    assert fake.requests[0]["messages"][-1]["content"] == "What tabs are there?"
    status = json.loads(host.run("status", "--json").stdout)
    assert status["backend"] == "ollama" and status["model"] == "gemma4:e4b"
    assert status["reactor"] == {"state": "idle", "queued": 0, "turns": 2}
    log = host.run("log").stdout
    assert "run done" in log and "one tab: sh, idle" in log


def test_ask_fails_with_reason_and_exit_1(serve, tiki_env, fake):
    env = {**tiki_env, "OLLAMA_HOST": fake.url, "TIKI_BACKEND": "ollama"}
    host = serve(BASH_TAB, env=env)
    fake.script(Reply(status=404, error="model not found"))
    result = host.run("ask", "hi")
    assert result.returncode == 1 and "ollama pull gemma4:e4b" in result.stderr


def test_ask_allow_shell_types_into_the_shell(serve, tiki_env, fake):
    env = {**tiki_env, "OLLAMA_HOST": fake.url, "TIKI_BACKEND": "ollama"}
    host = serve(BASH_TAB, env=env)
    fake.script(Reply.action("send_to_terminal", tab="sh", text="echo from-ask-$((3*3))"),
                Reply.action("done", message="typed"))
    assert host.run("ask", "--allow-shell", "type it").returncode == 0
    host.wait_text("sh", "from-ask-9")


def test_doctor_reports_pty_socket_and_ollama(tiki_env, fake):
    import subprocess
    from conftest import TIKI

    env = {**tiki_env, "OLLAMA_HOST": fake.url}
    result = subprocess.run([TIKI, "doctor"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok    pty:" in result.stdout and "ok    ollama:" in result.stdout
    assert "ok    model:" in result.stdout and "ok    embedded:" in result.stdout
    missing = subprocess.run([TIKI, "doctor"], env={**env, "TIKI_MODEL": "nope:1b"}, capture_output=True, text=True)
    assert missing.returncode == 1 and "FAIL  model:" in missing.stdout and "ollama pull nope:1b" in missing.stdout
    # nothing answering, Ollama asked for explicitly: both Ollama checks fail, saying where
    down = subprocess.run([TIKI, "doctor"], env={**env, "OLLAMA_HOST": "127.0.0.1:9", "TIKI_BACKEND": "ollama"},
                          capture_output=True, text=True, timeout=60)
    assert down.returncode == 1 and "FAIL  ollama: nothing answers at http://127.0.0.1:9" in down.stdout


def test_ctrl_c_on_ask_cancels_its_run(serve, tiki_env, fake):
    import signal
    import subprocess

    from conftest import TIKI, wait_until

    env = {**tiki_env, "OLLAMA_HOST": fake.url, "TIKI_BACKEND": "ollama"}
    host = serve(BASH_TAB, env=env)
    fake.script(Reply(chunks=["{"], stall_after=1, stall_for=60))  # the model goes quiet
    ask = subprocess.Popen([TIKI, "ask", "hang"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: fake.requests, timeout=20, what="the model request")
    ask.send_signal(signal.SIGINT)
    ask.wait(10)
    assert ask.returncode != 0
    state = lambda: json.loads(host.run("status", "--json").stdout)["reactor"]["state"]  # noqa: E731
    wait_until(lambda: state() == "idle", timeout=15, what="the run to be cancelled")  # the stall lasts 60 s
    assert "cancelled" in host.run("log").stdout
