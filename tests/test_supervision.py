"""Supervision: a failure injected into each service is logged once, the piece restarts (or
ends with an error), and the next request works. Real host, real actors, real PTYs; the only
stand-in is the fake Ollama at the edge."""

from __future__ import annotations

import time

import pykka
from conftest import BASH_TAB, event_log, wait_until
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import RunDone, RunError
from tikitaka.actors.events import BotChat

PEER = '[[tab]]\nname = "Claude"\ncommand = ["cat"]\nrole = "peer"\n'


class Boom:
    """A message no actor expects: the injected fault."""


def inject(monkeypatch, actor_class) -> None:
    """Make `actor_class` fail on a `Boom` told to it, as a bug in a handler would."""
    original = actor_class.on_receive

    def on_receive(self, message):
        if isinstance(message, Boom):
            raise RuntimeError("injected fault")
        return original(self, message)

    monkeypatch.setattr(actor_class, "on_receive", on_receive)


def _health(host, name):
    return host.supervisor.health().get(name, {})


def restarted(slot, old_ref) -> bool:
    """The slot holds a new, live actor."""
    return slot.ref is not old_ref and slot.ref.is_alive()


def test_workspace_failure_restarts_it_with_every_tab(agent, monkeypatch):
    a = agent()
    from tikitaka.actors.tabs.workspace import WorkspaceActor

    inject(monkeypatch, WorkspaceActor)
    before = a.host.workspace.names().get(timeout=5)
    slot = a.host._workspace
    old = slot.ref
    old.tell(Boom())
    wait_until(lambda: restarted(slot, old), what="the workspace restarted")
    assert wait_until(lambda: _try(lambda: a.host.workspace.names().get(timeout=5)), what="workspace answers") == before
    health = _health(a.host, "workspace")
    assert health["state"] == "restarted" and "injected fault" in health["last_error"]
    # The tabs' terminals were not touched: the shell still runs commands.
    handle = a.host.workspace.get("sh").get(timeout=5)
    handle.terminal.write(b"echo still-$((40+2))\r").get(timeout=5)
    wait_until(lambda: "still-42" in handle.terminal.read_text(20).get(timeout=5)["text"], what="echo")


def _try(call):
    try:
        return call()
    except (pykka.ActorDeadError, pykka.Timeout):
        return None


def test_peers_failure_restarts_the_bot_and_keeps_its_handshakes(agent, monkeypatch):
    a = agent(PEER, peers=True)
    bot = a.host.service("bot")
    assert bot.prepare_send("Claude", "hello").get(timeout=5).startswith("[tikitaka]")
    from tikitaka.actors.peers.bot import BotActor

    inject(monkeypatch, BotActor)
    slot = a.host._services["bot"]
    old = slot.ref
    old.tell(Boom())
    wait_until(lambda: restarted(slot, old), what="the bot restarted")
    assert _health(a.host, "peers")["restarts"] == 1
    # The new bot remembers that Claude was introduced: its ack connects it.
    a.host.bus.publish(BotChat("Claude", "handshake-ok", True))
    wait_until(lambda: _try(lambda: a.host.service("bot").states().get(timeout=5)) == {"Claude": {"handshake": "connected"}},
               what="Claude connected through the restarted bot")


def test_coordinator_failure_restarts_it_and_the_next_ask_works(agent, monkeypatch):
    a = agent()
    a.fake.script(Reply.action("done", message="first"))
    final, _ = a.run("one")
    assert isinstance(final, RunDone)
    messages = len(a.coordinator.messages().get(timeout=5))
    from tikitaka.actors.coordinator.actor import Coordinator

    inject(monkeypatch, Coordinator)
    slot = a.host._services["coordinator"]
    old = slot.ref
    old.tell(Boom())
    wait_until(lambda: restarted(slot, old), what="the coordinator restarted")
    assert _health(a.host, "coordinator")["restarts"] == 1
    a.fake.script(Reply.action("done", message="second"))
    coordinator = a.host.service("coordinator")
    run_id = coordinator.submit("two").get(timeout=5)
    final, _ = a.collect(run_id)
    assert isinstance(final, RunDone) and final.message == "second"
    # The conversation survived the restart: the new run appended to it.
    assert len(coordinator.messages().get(timeout=5)) == messages + 2


def test_a_transcript_that_cannot_be_written_does_not_hang_ask(agent, in_tiki_env):
    # Catalogue item 11: the transcripts directory is a file, so writing the transcript fails.
    from pathlib import Path

    state = Path(in_tiki_env["TIKI_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "transcripts").write_text("not a directory")
    a = agent()
    for answer in ("first", "second"):
        a.fake.script(Reply.action("done", message=answer))
        final, _ = a.run(f"say {answer}", timeout=20)
        assert isinstance(final, RunDone) and final.message == answer
    health = _health(a.host, "coordinator.transcript")
    assert health["failures"] == 2 and "transcripts" in health["last_error"]


def test_an_old_transcript_that_cannot_be_removed_is_reported_once_and_runs_are_still_recorded(agent, in_tiki_env):
    import json
    from pathlib import Path

    from tikitaka.protocol.paths import host_tag

    a = agent(transcript_days=30)
    prefix = f"runs{host_tag(a.host.socket_path)}-"
    old = Path(in_tiki_env["TIKI_STATE_DIR"]) / "transcripts" / f"{prefix}2001-01-01.jsonl"
    (old / "inside").mkdir(parents=True)  # a directory by a transcript's name: unlink fails
    for answer in ("first", "second"):
        a.fake.script(Reply.action("done", message=answer))
        final, _ = a.run(f"say {answer}", timeout=20)
        assert isinstance(final, RunDone) and final.message == answer
    health = _health(a.host, "coordinator.transcript")
    assert health["failures"] == 1 and old.name in health["last_error"]
    today = old.parent / time.strftime(f"{prefix}%Y-%m-%d.jsonl")
    assert [json.loads(line)["detail"] for line in today.read_text().splitlines()] == ["first", "second"]


def test_a_run_that_breaks_outside_the_loop_ends_with_an_error_and_the_worker_lives(agent, monkeypatch):
    a = agent()
    from tikitaka.actors.coordinator.transcript import Transcript

    calls = []
    original = Transcript.start

    def broken_start(self, request, backend, model):
        calls.append(request.prompt)
        if len(calls) == 1:
            raise RuntimeError("injected fault in the transcript")
        return original(self, request, backend, model)

    monkeypatch.setattr(Transcript, "start", broken_start)
    final, _ = a.run("first", timeout=20)
    assert isinstance(final, RunError) and "injected fault" in final.reason
    a.fake.script(Reply.action("done", message="fine"))
    final, _ = a.run("second", timeout=20)
    assert isinstance(final, RunDone) and final.message == "fine"


def test_an_event_log_that_cannot_be_written_loses_no_message(serve, tiki_env):
    event_log(tiki_env).mkdir(parents=True)  # a directory where the log file should be
    host = serve(BASH_TAB)
    result = host.run("bot-chat", "DONE(42, obviously)", "--from", "someone")
    assert result.returncode == 0, result.stderr
    assert "delivered as someone" in result.stdout
    status = host.json("status")
    assert status["health"]["event_log"]["failures"] >= 1
    assert event_log(tiki_env).name in status["health"]["event_log"]["last_error"]
    # Logged once, in one line each, not a traceback per write.
    lines = [line for line in host.stderr().splitlines() if "event_log" in line]
    assert len(lines) == 1 and "Traceback" not in host.stderr()


def test_status_json_has_a_health_section(serve):
    host = serve(BASH_TAB)
    health = host.json("status")["health"]
    for name in ("workspace", "coordinator", "coordinator.worker", "peers", "event_log", "tab:1"):
        assert name in health, health
        assert health[name]["state"] == "ok" and health[name]["restarts"] == 0
    text = host.run("status")
    assert text.returncode == 0
    assert "health: all services ok" in text.stdout, text.stdout


def test_status_text_names_a_failed_service(serve, tiki_env):
    event_log(tiki_env).mkdir(parents=True)
    host = serve(BASH_TAB)
    host.run("bot-chat", "hello", "--from", "someone")
    text = host.run("status").stdout
    assert "event_log" in text and "failure" in text and event_log(tiki_env).name in text
