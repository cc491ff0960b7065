"""A host that did not shut down (killed, crashed, the machine went down) is succeeded by one
serving the same workspace, however the next one is started; a clean shutdown leaves nothing
to restore."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from conftest import TIKI, wait_until

TABS = ('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'
        '[[tab]]\nname = "notes"\ncommand = ["bash", "--norc", "--noprofile"]\n')


def serve(env: dict[str, str], cwd: Path, *args: str) -> subprocess.Popen[str]:
    host = subprocess.Popen([TIKI, "serve", *args], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: host.poll() is not None or _tabs(env), 60, 0.1, what="the host to answer")
    assert host.poll() is None, host.stderr.read() if host.stderr else ""
    return host


def _tabs(env: dict[str, str]) -> list[str] | None:
    result = subprocess.run([TIKI, "terminal-list", "--json"], env=env, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        return None
    return [tab["name"] for tab in json.loads(result.stdout)["terminals"]]


def shutdown(env: dict[str, str], host: subprocess.Popen[str]) -> str:
    assert subprocess.run([TIKI, "shutdown"], env=env, capture_output=True, timeout=60).returncode == 0
    host.wait(30)
    return host.stderr.read() if host.stderr else ""


def test_the_host_after_a_crash_serves_the_workspace_the_crashed_one_served(tiki_env, tmp_path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    workspace = project / "team.toml"
    workspace.write_text(TABS)

    first = serve(tiki_env, project, "--workspace", str(workspace))
    assert _tabs(tiki_env) == ["sh", "notes"]
    first.send_signal(signal.SIGKILL)
    first.wait(10)

    # No --workspace, another directory: still the crashed host's tabs, and the host says why.
    second = serve(tiki_env, elsewhere)
    assert _tabs(tiki_env) == ["sh", "notes"]
    said = shutdown(tiki_env, second)
    assert f"restored {workspace}" in said and f"pid {first.pid}" in said, said

    # That host shut down cleanly: the next launch resolves its workspace as usual (one shell).
    third = serve(tiki_env, elsewhere)
    assert _tabs(tiki_env) == ["shell"]
    assert "restored" not in shutdown(tiki_env, third)


def test_a_crashed_hosts_workspace_that_is_gone_is_not_restored_and_that_is_said(tiki_env, tmp_path):
    workspace = tmp_path / "team.toml"
    workspace.write_text(TABS)
    first = serve(tiki_env, tmp_path, "--workspace", str(workspace))
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    os.unlink(workspace)

    second = serve(tiki_env, tmp_path)
    assert _tabs(tiki_env) == ["shell"]
    said = shutdown(tiki_env, second)
    assert f"{workspace}" in said and "no longer exists" in said, said


def test_an_explicit_workspace_wins_over_the_one_a_crashed_host_served(tiki_env, tmp_path):
    crashed, chosen = tmp_path / "crashed.toml", tmp_path / "chosen.toml"
    crashed.write_text(TABS)
    chosen.write_text('[[tab]]\nname = "only"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    first = serve(tiki_env, tmp_path, "--workspace", str(crashed))
    first.send_signal(signal.SIGKILL)
    first.wait(10)

    second = serve(tiki_env, tmp_path, "--workspace", str(chosen))
    assert _tabs(tiki_env) == ["only"]
    assert "restored" not in shutdown(tiki_env, second)



def test_after_a_crash_on_a_first_launch_the_next_host_starts_as_usual_and_says_nothing(tiki_env, tmp_path):
    """A first launch serves the default workspace before it was ever saved (one shell tab): there
    is nothing gone to speak of when the host after a crash serves the same."""
    first = serve(tiki_env, tmp_path)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    second = serve(tiki_env, tmp_path)
    assert _tabs(tiki_env) == ["shell"]
    said = shutdown(tiki_env, second)
    assert "no longer exists" not in said and "restored" not in said, said


def _active(env: dict[str, str]) -> str | None:
    result = subprocess.run([TIKI, "terminal-list", "--json"], env=env, capture_output=True, text=True, timeout=30)
    return next((tab["name"] for tab in json.loads(result.stdout)["terminals"] if tab["active"]), None)


def test_the_host_after_a_crash_shows_the_tab_that_was_shown(tiki_env, tmp_path):
    """A UI showed `notes` when the host was killed: the next `tiki` brings the tabs back and
    shows `notes` again, not the first tab (the crashed host's record names it)."""
    from ui_protocol_helpers import Session

    workspace = tmp_path / "team.toml"
    workspace.write_text(TABS)
    first = serve(tiki_env, tmp_path, "--workspace", str(workspace))
    ui = Session(tiki_env)
    try:
        ui.client.watch(ui.tabs["notes"])
        wait_until(lambda: _active(tiki_env) == "notes", 10, 0.1, what="notes shown")
    finally:
        ui.client.close()
    first.send_signal(signal.SIGKILL)
    first.wait(10)

    second = serve(tiki_env, tmp_path)
    assert _tabs(tiki_env) == ["sh", "notes"] and _active(tiki_env) == "notes"
    shutdown(tiki_env, second)
