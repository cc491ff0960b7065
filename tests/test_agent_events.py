"""Agent states as the host's other parts see them (issue 12, part 2): the events a tab's detector
publishes (state changes and notifications for the user), and the coordinator's tools on top
of them -- `list_terminals` with each tab's state, a `send_to_terminal` into a working agent
that is typed once it is idle, one into an agent waiting for its user that returns what it
asks, and a `wait` that wakes when a peer starts waiting. In-process hosts, real tabs running
the stand-ins, the coordinator on a scripted fake Ollama."""

from __future__ import annotations

import json
import queue
import sys
import time
from pathlib import Path

import pytest
from fake_ollama import Reply

from tikitaka.actors.coordinator.events import ToolEnd
from tikitaka.actors.events import AgentNotice, AgentStateChanged
from tikitaka.actors.host import Host, HostOptions
from tikitaka.protocol.config_file import SettingsError, parse_settings
from tikitaka.protocol.settings import NotifySettings, Settings

STANDINS = Path(__file__).parent / "standins"


def tab(name: str, script: str, *args: str) -> str:
    command = json.dumps([sys.executable, str(STANDINS / script), *args])
    return f'[[tab]]\nname = "{name}"\ncommand = {command}\nrole = "peer"\n'


def until_state(host, name: str, state: str, timeout: float = 10.0):
    agent = host.workspace.get(name).get(timeout=5).terminal.agent().get(timeout=5)
    view = agent.wait_for(lambda v: v.state == state, timeout)
    assert view is not None, f"{name} not {state} within {timeout} s: {agent.view}"
    return view


@pytest.fixture
def plain_host(tmp_path, in_tiki_env):
    hosts = []

    def start(workspace: str, **notify) -> tuple[Host, "queue.Queue[object]"]:
        path = tmp_path / "workspace.toml"
        path.write_text(workspace)
        host = Host(HostOptions(workspace=path, settings=Settings(notify=NotifySettings(**notify)),
                                coordinator=False, peers=False))
        events: queue.Queue[object] = queue.Queue()
        host.bus.subscribe(lambda e: events.put(e) if isinstance(e, (AgentNotice, AgentStateChanged)) else None)
        host.start()
        hosts.append(host)
        return host, events

    yield start
    for host in hosts:
        host.stop()


def drain(events: "queue.Queue[object]", until, timeout: float = 15.0) -> list[object]:
    seen, deadline = [], time.monotonic() + timeout
    while not any(until(e) for e in seen):
        seen.append(events.get(timeout=max(0.01, deadline - time.monotonic())))
    return seen


def test_state_changes_and_notifications_for_the_user(plain_host):
    host, events = plain_host(tab("Claude", "claude_standin.py", "--speed", "0.4", "--notify"), done_after=0.5)
    until_state(host, "Claude", "idle")
    outbox = host.workspace.get("Claude").get(timeout=5).terminal.outbox().get(timeout=5)
    assert outbox.submit("make a demo dir", name="Claude").wait(10)
    seen = drain(events, lambda e: isinstance(e, AgentNotice) and e.reason == "waiting")
    changes = [e.state for e in seen if isinstance(e, AgentStateChanged)]
    assert changes[-2:] == ["working", "waiting"]
    waiting = next(e for e in seen if isinstance(e, AgentNotice))
    assert waiting.name == "Claude" and "Do you want to proceed?" in waiting.text
    # the program's own OSC 9 is passed on too
    seen += drain(events, lambda e: isinstance(e, AgentNotice) and e.reason == "program", 5)
    assert any(isinstance(e, AgentNotice) and e.text == "Claude needs your permission" for e in seen)

    outbox.submit("1", enter=False, now=True, name="Claude").wait(10)  # answered: it works, then is done
    seen = drain(events, lambda e: isinstance(e, AgentNotice) and e.reason == "done")
    assert [e.state for e in seen if isinstance(e, AgentStateChanged)][-2:] == ["working", "idle"]
    assert not any(isinstance(e, AgentNotice) and e.reason == "waiting" for e in seen)


def test_notifications_can_be_turned_off(plain_host):
    host, events = plain_host(tab("Claude", "claude_standin.py", "--speed", "0.3", "--notify"),
                              waiting=False, program=False)
    until_state(host, "Claude", "idle")
    host.workspace.get("Claude").get(timeout=5).terminal.outbox().get(timeout=5).submit("go", name="Claude")
    seen = drain(events, lambda e: isinstance(e, AgentStateChanged) and e.state == "waiting")
    time.sleep(0.5)  # the notice would have come with the state change (positive control: the test above)
    while not events.empty():
        seen.append(events.get())
    assert not any(isinstance(e, AgentNotice) for e in seen)


def test_a_restarted_tab_is_starting_at_once_not_its_old_programs_state(plain_host):
    """Between a restart and the new program's first screen, nobody may read the old state
    (an `exited` waiter would return, an `idle` one would type into a program not yet there)."""
    host, events = plain_host(tab("Claude", "claude_standin.py", "--speed", "0.3"))
    until_state(host, "Claude", "idle")
    terminal = host.workspace.get("Claude").get(timeout=5).terminal
    terminal.write(b"\x04").get(timeout=5)  # Claude quits at an empty prompt
    until_state(host, "Claude", "exited")
    agent = terminal.agent().get(timeout=5)
    host.workspace.restart_tab("Claude").get(timeout=10)
    assert agent.view.state == "starting"  # as soon as the restart returned: never `exited`
    seen = drain(events, lambda e: isinstance(e, AgentStateChanged) and e.previous == "exited")
    assert (seen[-1].state, seen[-1].name) == ("starting", "Claude"), seen
    until_state(host, "Claude", "idle")


def test_the_notify_settings_parse_and_refuse_typos():
    settings = parse_settings("[notify]\nosc777 = false\ndone_after = 10\n", env={})
    assert settings.notify.osc777 is False and settings.notify.done_after == 10 and settings.notify.osc9 is True
    with pytest.raises(SettingsError, match="unknown setting 'notify.osc99'"):
        parse_settings("[notify]\nosc99 = true\n", env={})


def test_the_coordinator_sees_states_waits_for_idle_and_wakes_on_waiting(agent):
    a = agent(tab("Codex", "codex_standin.py", "--speed", "0.6") + tab("Claude", "claude_standin.py", "--speed", "0.5"))
    until_state(a.host, "Codex", "idle")
    until_state(a.host, "Claude", "idle")
    a.fake.script(
        Reply.action("send_to_terminal", tab="Codex", text="first task"),
        Reply.action("send_to_terminal", tab="Codex", text="second task"),
        Reply.action("send_to_terminal", tab="Claude", text="make a demo dir"),
        Reply.action("wait", seconds=30),
        Reply.action("send_to_terminal", tab="Claude", text="are you there"),
        Reply.action("list_terminals"),
        Reply.action("done", message="Claude asks whether it may run mkdir"),
    )
    _, events = a.run("work with Codex and Claude", timeout=90)
    results = [(e.tool, e.args, e.result) for e in events if isinstance(e, ToolEnd)]
    first, second, third, waited, refused, listed = (r for _, _, r in results[:6])
    assert first["ok"] is True and "delivery" not in first  # Codex was idle: typed at once
    assert second["ok"] is True and second["delivery"] == "delivered" and second["queued_s"] > 0.3
    assert third["ok"] is True
    assert waited["ok"] is True and waited["waited"] < 15
    assert waited["peer_waiting"]["tab"] == "Claude" and "Do you want to proceed?" in waited["peer_waiting"]["screen"]
    assert refused["ok"] is False and "waiting for its user" in refused["error"]
    assert "Do you want to proceed?" in refused["peer_waiting"]["screen"]
    rows = {row["name"]: row for row in listed["terminals"]}
    assert rows["Claude"]["agent"]["kind"] == "claude" and rows["Claude"]["agent"]["state"] == "waiting"
    assert rows["Claude"]["agent"]["reason"].startswith("choice-menu: ")
    assert rows["Codex"]["agent"]["kind"] == "codex"
    # the model read the state in its tool results
    assert "peer_waiting" in a.fake.requests[4]["messages"][-1]["content"]


def test_a_send_right_after_another_waits_for_a_verdict_newer_than_the_last_typing(plain_host, tmp_path):
    """Back-to-back sends into an agent: the second may not trust a state read before the first
    was typed. (Found in CI under load: the detector had not yet seen Codex start working, so the
    second text went into its composer mid-turn instead of waiting for the turn to end.)"""
    log = tmp_path / "codex.jsonl"
    host, _ = plain_host(tab("Codex", "codex_standin.py", "--speed", "0.6", "--log", str(log)))
    until_state(host, "Codex", "idle")
    outbox = host.workspace.get("Codex").get(timeout=5).terminal.outbox().get(timeout=5)
    first = outbox.submit("first task", name="Codex")
    assert first.wait(10) and first.error is None and not first.queued
    second = outbox.submit("second task", name="Codex")  # at once, as a coordinator's next turn may
    assert second.queued, "typed on a verdict older than the first text"
    assert second.wait(20) and second.error is None, second.error
    arrivals = [json.loads(line) for line in log.read_text().splitlines()]
    assert [a["state"] for a in arrivals if "second" in a["text"]] == ["idle"], arrivals


@pytest.mark.parametrize("program", [True, False])
def test_a_programs_bell_is_a_notice_once_for_a_run_of_them_unless_turned_off(plain_host, program):
    bash = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'
    host, events = plain_host(bash, program=program)
    until_state(host, "sh", "idle")
    outbox = host.workspace.get("sh").get(timeout=5).terminal.outbox().get(timeout=5)
    assert outbox.submit(r"printf 'a\a\a\a\a\a'; sleep 0.5; echo rung-$((1+1))", name="sh").wait(10)
    terminal = host.workspace.get("sh").get(timeout=5).terminal
    deadline = time.monotonic() + 10
    while "rung-2" not in terminal.read_text(5).get(timeout=5)["text"] and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # a notice comes with the detector's next look (positive control: program=True)
    notices = []
    while not events.empty():
        event = events.get()
        if isinstance(event, AgentNotice):
            notices.append(event)
    assert [(e.name, e.reason) for e in notices] == ([("sh", "bell")] if program else [])
