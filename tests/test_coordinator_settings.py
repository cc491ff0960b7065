"""The `[coordinator]` settings section and its old name `[reactor]`."""

from __future__ import annotations

import pytest

from tikitaka.protocol.config_file import SettingsError, parse_settings


def test_the_coordinator_section_is_read():
    settings = parse_settings('[coordinator]\nmodel = "qwen3:4b"\nmax_turns = 7\n', env={})
    assert settings.coordinator.model == "qwen3:4b" and settings.coordinator.max_turns == 7


def test_the_old_reactor_section_still_works_with_a_one_line_notice(capsys):
    settings = parse_settings('[reactor]\nmodel = "old:1b"\n', env={})
    assert settings.coordinator.model == "old:1b"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[reactor] is now called [coordinator]" in err


def test_both_sections_at_once_name_the_fix():
    with pytest.raises(SettingsError, match=r"move its settings into \[coordinator\]"):
        parse_settings('[reactor]\nmodel = "a"\n[coordinator]\nmodel = "b"\n', env={})


def test_old_think_becomes_reasoning_with_a_notice(capsys):
    assert parse_settings("[coordinator]\nthink = true\n", env={}).coordinator.reasoning == "on"
    assert parse_settings("[coordinator]\nthink = false\n", env={}).coordinator.reasoning == "off"
    assert parse_settings("", env={}).coordinator.reasoning == "auto"
    assert 'reasoning = "on" | "off" | "auto"' in capsys.readouterr().err


def test_a_reply_budget_that_leaves_no_room_for_a_prompt_is_refused_with_the_fix():
    with pytest.raises(SettingsError, match="reply_tokens .2000. must be at most half of num_ctx .2048."):
        parse_settings("[coordinator]\nnum_ctx = 2048\nreply_tokens = 2000\n", env={})


def test_the_openai_backend_settings_and_their_environment():
    settings = parse_settings('[coordinator]\nbackend = "openai"\nbase_url = "http://a/v1"\n',
                              env={"TIKI_BASE_URL": "http://b:8080/v1", "TIKI_MODEL": "qwen"}).coordinator
    assert (settings.backend, settings.base_url, settings.model, settings.api_key_env) == (
        "openai", "http://b:8080/v1", "qwen", "OPENAI_API_KEY")
    assert parse_settings("", env={"TIKI_BACKEND": "openai"}).coordinator.backend == "openai"


def test_budgets_derive_from_the_window():
    settings = parse_settings("[coordinator]\nnum_ctx = 4096\n", env={}).coordinator
    assert settings.result_budget() == 1024 and settings.reply_budget(False) == 512
    assert settings.reply_budget(True) == 512 + 1024
    assert parse_settings("", env={}).coordinator.result_budget() == 2000


def test_the_backend_auto_chose_is_logged_once_when_asked_at_once(plain_hosts):
    """`tiki` started a host and its UI attached at once: the UI's backend check and the
    host's own each probed Ollama while the choice was still "auto", and the event log said
    "no Ollama answering ...; using the embedded backend" twice, 5 ms apart."""
    import threading

    from tikitaka.actors.coordinator.backends.choice import BackendChoice
    from tikitaka.protocol.settings import CoordinatorSettings, Settings

    host = plain_hosts('[[tab]]\nname = "sh"\ncommand = ["cat"]\n',
                       settings=Settings(coordinator=CoordinatorSettings(backend="auto", ollama_host="127.0.0.1:9")))
    choice = BackendChoice(host)
    start = threading.Barrier(8)

    def check() -> None:
        start.wait()
        choice.problem()

    threads = [threading.Thread(target=check) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    notes = [entry for entry in host.event_log.tail(None) if entry["kind"] == "backend"]
    assert len(notes) == 1 and "no Ollama answering at http://127.0.0.1:9" in notes[0]["detail"], notes
