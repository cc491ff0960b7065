"""`tiki ask` and `tiki status` against `tiki serve`, the coordinator on a fake Ollama."""

from __future__ import annotations

import json

import pytest
from conftest import BASH_TAB
from fake_ollama import Reply


def test_ask_streams_progress_and_prints_the_answer(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("list_terminals"), Reply.action("done", message="one tab: sh, idle"))
    result = host.run("ask", "What", "tabs", "are", "there?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "one tab: sh, idle"
    assert "→ list_terminals" in result.stderr and "← list_terminals" in result.stderr
    request = fake.requests[0]["messages"][-1]["content"]
    assert request.startswith("What tabs are there?\n\n(Tabs now: sh (shell: bash")  # the tabs come along
    # progress a person can follow, and the run's figures at the end (not a TTY: plain lines)
    assert "turn 1 · reading prompt" in result.stderr and "turn 2 · generating" in result.stderr
    assert "tok/s" in result.stderr and "done · 2 turns ·" in result.stderr
    status = json.loads(host.run("status", "--json").stdout)
    assert status["backend"] == "ollama" and status["model"] == "gemma4:e4b"
    assert status["coordinator"] == {"state": "idle", "queued": 0, "turns": 0, "last_turns": 2}  # idle: no current run
    log = host.run("log").stdout
    assert "run done" in log and "one tab: sh, idle" in log


def test_ask_fails_with_reason_and_exit_1(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply(status=404, error="model not found"))
    result = host.run("ask", "hi")
    assert result.returncode == 1 and "ollama pull gemma4:e4b" in result.stderr


def test_ask_allow_shell_types_into_the_shell(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("send_to_terminal", tab="sh", text="echo from-ask-$((3*3))"),
                Reply.action("done", message="typed"))
    assert host.run("ask", "--allow-shell", "type it").returncode == 0
    host.wait_text("sh", "from-ask-9")


def doctor(env):
    import subprocess

    from conftest import TIKI

    return subprocess.run([TIKI, "doctor"], env=env, capture_output=True, text=True, timeout=60)


def test_doctor_reports_pty_socket_and_ollama(tiki_env, fake):
    env = {**tiki_env, "OLLAMA_HOST": fake.url}
    result = doctor(env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok    pty:" in result.stdout and "ok    ollama:" in result.stdout
    assert "ok    model:" in result.stdout and "ok    config:" in result.stdout
    assert "info  embedded:" in result.stdout  # optional when Ollama answers: never a failure
    missing = doctor({**env, "TIKI_MODEL": "nope:1b"})
    assert missing.returncode == 1 and "FAIL  model:" in missing.stdout and "ollama pull nope:1b" in missing.stdout
    # nothing answering, Ollama asked for explicitly: both Ollama checks fail, saying where
    down = doctor({**env, "OLLAMA_HOST": "127.0.0.1:9", "TIKI_BACKEND": "ollama"})
    assert down.returncode == 1 and "FAIL  ollama: nothing answers at http://127.0.0.1:9" in down.stdout


def test_doctor_fails_an_embedded_backend_without_its_model(tiki_env, tmp_path):
    # Catalogue item 15: backend embedded with a missing gguf_path used to be all ok.
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text('[coordinator]\nbackend = "embedded"\ngguf_path = "/nowhere/model.gguf"\n')
    result = doctor(tiki_env)
    assert result.returncode == 1, result.stdout
    assert "FAIL  embedded: the GGUF file /nowhere/model.gguf does not exist" in result.stdout
    assert "info  ollama:" in result.stdout  # not needed: reported, not failed
    (config / "config.toml").write_text('[coordinator]\nbackend = "embedded"\nnum_ctx = 8192\n')
    ok = doctor(tiki_env)
    assert ok.returncode == 0, ok.stdout
    assert "ok    embedded:" in ok.stdout and "context 8192 tokens" in ok.stdout


def test_a_bad_setting_is_a_clear_failure_not_a_traceback(serve, tiki_env, tmp_path):
    # Catalogue item 15: an unknown key was a traceback; an invalid TIKI_BACKEND was ignored.
    import subprocess

    from conftest import TIKI

    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text('[coordinator]\nbakend = "ollama"\n')
    result = doctor(tiki_env)
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert "FAIL  config:" in result.stdout and "unknown setting 'coordinator.bakend'" in result.stdout
    assert "known here: backend, model" in result.stdout
    serve_ = subprocess.run([TIKI, "serve"], env=tiki_env, capture_output=True, text=True, timeout=30)
    assert serve_.returncode == 1 and "unknown setting 'coordinator.bakend'" in serve_.stderr
    (config / "config.toml").write_text("")
    wrong = doctor({**tiki_env, "TIKI_BACKEND": "olama"})
    assert wrong.returncode == 1 and "TIKI_BACKEND='olama' is not a backend" in wrong.stdout
    assert "auto, ollama, embedded" in wrong.stdout


def test_ask_with_no_backend_fails_at_once_with_the_fix(serve, tiki_env, tmp_path):
    # Catalogue item 17: it used to retry for 30 s before saying so.
    import time

    host = serve(BASH_TAB, env={**tiki_env, "TIKI_BACKEND": "ollama"})  # OLLAMA_HOST is 127.0.0.1:9
    started = time.monotonic()
    result = host.run("ask", "hello")
    elapsed = time.monotonic() - started
    assert result.returncode == 1
    assert "no Ollama answering at http://127.0.0.1:9" in result.stderr and "ollama serve" in result.stderr
    assert elapsed < 3.0, f"took {elapsed:.2f} s"  # CLI start-up included; the host answers at once


def test_ctrl_c_on_ask_cancels_its_run(serve, fake_env, fake):
    import signal
    import subprocess

    from conftest import TIKI, wait_until

    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply(chunks=["{"], stall_after=1, stall_for=60))  # the model goes quiet
    # As a user's shell would: SIGINT at its default even when pytest runs with it ignored
    # (a background shell), which the child would otherwise inherit.
    ask = subprocess.Popen([TIKI, "ask", "hang"], env=fake_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    wait_until(lambda: fake.requests, timeout=20, what="the model request")
    ask.send_signal(signal.SIGINT)
    ask.wait(10)
    assert ask.returncode != 0
    state = lambda: json.loads(host.run("status", "--json").stdout)["coordinator"]["state"]  # noqa: E731
    wait_until(lambda: state() == "idle", timeout=15, what="the run to be cancelled")  # the stall lasts 60 s
    assert "cancelled" in host.run("log").stdout


@pytest.mark.parametrize("fake", ["openai"], indirect=True)
def test_the_openai_compatible_backend_through_tiki(serve, tiki_env, fake):
    pytest.importorskip("openai")
    env = {**tiki_env, "TIKI_BACKEND": "openai", "TIKI_BASE_URL": fake.url, "OPENAI_API_KEY": "sk-test"}
    ok = doctor(env)
    assert "ok    openai:" in ok.stdout and fake.url in ok.stdout, ok.stdout
    host = serve(BASH_TAB, env=env)
    fake.script(Reply.action("list_terminals"), Reply.action("done", message="one tab, sh"))
    result = host.run("ask", "which tabs?")
    assert result.returncode == 0 and result.stdout == "one tab, sh\n", result.stderr
    headers = {k.lower(): v for k, v in fake.headers[0].items()}
    assert headers["authorization"] == "Bearer sk-test"  # the key from the named variable
    assert fake.requests[0]["response_format"]["type"] == "json_schema" and fake.requests[0]["stream"]
    assert json.loads(host.run("status", "--json").stdout)["backend"] == "openai"
    missing = doctor({**tiki_env, "TIKI_BACKEND": "openai"})
    assert missing.returncode == 1 and "FAIL  openai: backend = \"openai\" needs a server: set base_url" in missing.stdout
    down = doctor({**tiki_env, "TIKI_BACKEND": "openai", "TIKI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert "FAIL  openai: nothing answers at http://127.0.0.1:9/v1" in down.stdout
