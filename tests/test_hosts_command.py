"""`tiki hosts`: the hosts running for this user, one per socket (two workspaces at once run two),
read from the records they keep in the state directory -- so it answers at once, with no host
running or with one stopped. Real hosts, the real CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from conftest import BASH_TAB, TIKI, Host, sigstop


def hosts(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, "hosts", *args], env=env, capture_output=True, text=True, timeout=30)


def test_hosts_lists_every_running_host_and_marks_this_sockets(serve, tiki_env, tmp_path: Path) -> None:
    none = hosts(tiki_env)
    assert none.returncode == 0 and "no tiki host is running" in none.stdout, none
    assert json.loads(hosts(tiki_env, "--json").stdout) == {"hosts": []}

    first = serve(BASH_TAB)
    other_env = dict(tiki_env, TIKI_SOCKET=str(Path(tiki_env["TIKI_SOCKET"]).parent / "other"))
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text(BASH_TAB)
    second = Host(other_env, elsewhere, tmp_path)
    try:
        listed = hosts(tiki_env)
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        mine = [line for line in lines if line.startswith("*")]
        assert len(mine) == 1 and tiki_env["TIKI_SOCKET"] in mine[0] and str(first.proc.pid) in mine[0], lines
        assert str(first.workspace) in mine[0]
        theirs = [line for line in lines if other_env["TIKI_SOCKET"] in line]
        assert len(theirs) == 1 and not theirs[0].startswith("*") and str(elsewhere) in theirs[0], lines
        assert "running" in theirs[0]

        sigstop(second.proc.pid)  # (a stopped host: the list says so, and does not wait for it)
        try:
            listed = json.loads(hosts(other_env, "--json").stdout)["hosts"]
            by_socket = {entry["socket"]: entry for entry in listed}
            assert by_socket[other_env["TIKI_SOCKET"]] == {"socket": other_env["TIKI_SOCKET"], "pid": second.proc.pid,
                                                           "workspace": str(elsewhere), "state": "stopped",
                                                           "this_socket": True}
            assert by_socket[tiki_env["TIKI_SOCKET"]]["state"] == "running"
            assert not by_socket[tiki_env["TIKI_SOCKET"]]["this_socket"]
            assert "kill -CONT" in hosts(other_env).stdout
        finally:
            os.kill(second.proc.pid, signal.SIGCONT)
    finally:
        second.stop()
    listed = json.loads(hosts(tiki_env, "--json").stdout)["hosts"]
    assert [entry["socket"] for entry in listed] == [tiki_env["TIKI_SOCKET"]]


def test_no_host_on_this_socket_names_the_one_running_on_another(serve, tiki_env) -> None:
    """A second workspace's host, and a terminal where TIKI_SOCKET is not set: "no tiki host is
    running" alone sent the user to start a third."""
    first = serve(BASH_TAB)
    elsewhere = dict(tiki_env, TIKI_SOCKET=str(Path(tiki_env["TIKI_SOCKET"]).parent / "nothing-here"))
    result = subprocess.run([TIKI, "terminal-list"], env=elsewhere, capture_output=True, text=True, timeout=30)
    assert result.returncode == 3
    assert f"a host runs on {tiki_env['TIKI_SOCKET']} (serving {first.workspace})" in result.stderr, result.stderr
    assert f"TIKI_SOCKET={tiki_env['TIKI_SOCKET']} reaches it" in result.stderr


def test_shutdown_all_stops_every_host_and_names_one_it_cannot_ask(serve, tiki_env, tmp_path: Path) -> None:
    first = serve(BASH_TAB)
    envs = [dict(tiki_env, TIKI_SOCKET=str(Path(tiki_env["TIKI_SOCKET"]).parent / name)) for name in ("b", "c")]
    others = []
    for n, env in enumerate(envs):
        workspace = tmp_path / f"ws{n}.toml"
        workspace.write_text(BASH_TAB)
        others.append(Host(env, workspace, tmp_path))
    sigstop(others[1].proc.pid)
    try:
        result = subprocess.run([TIKI, "shutdown", "--all"], env=envs[0], capture_output=True, text=True, timeout=60)
        assert result.returncode == 4, result
        assert f"`kill -CONT {others[1].proc.pid}`" in result.stderr, result.stderr
        for host in (first, others[0]):
            assert f"host on {host.env['TIKI_SOCKET']} stopping (pid {host.proc.pid}" in result.stdout, result.stdout
            host.proc.wait(30)
        assert [entry["pid"] for entry in json.loads(hosts(tiki_env, "--json").stdout)["hosts"]] == [others[1].proc.pid]
    finally:
        os.kill(others[1].proc.pid, signal.SIGCONT)
    result = subprocess.run([TIKI, "shutdown", "--all"], env=tiki_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result
    others[1].proc.wait(30)
    assert json.loads(hosts(tiki_env, "--json").stdout) == {"hosts": []}
    assert subprocess.run([TIKI, "shutdown", "--all"], env=tiki_env, capture_output=True, text=True,
                          timeout=60).stdout.startswith("no tiki host is running")
