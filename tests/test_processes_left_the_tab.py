"""Processes a tab started that left its session (issue 13: "`tiki shutdown` leaves no process
behind"). A daemon forks twice and calls `setsid`; Node's `detached: true` and Python's
`start_new_session` put a child in a session of its own while its parent runs on (Codex starts
its app-server so). None of them carries the tab's session id, so ending the session misses
them. The host adopts them instead (Linux: a child subreaper): it reaps those that exit while it
runs and ends those left when it stops."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time

import pytest
from conftest import BASH_TAB, wait_until
from harness import leftovers
from term_helpers import alive, kill_all, wait_file

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the host adopts orphans on Linux")

# A daemon as the books write it: fork, setsid, fork again (the first child exits, so the daemon
# is an orphan with no session leader above it), deaf to SIGHUP and SIGTERM.
DAEMON = r"""
import os, signal, sys, time
if os.fork():
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(sys.argv[1], "a") as out:
    out.write(f"{os.getpid()}\n")
time.sleep(float(sys.argv[2]))
"""

# A program that keeps a helper in a session of its own and runs on itself (as Codex does).
KEEPER = r"""
import subprocess, sys, time
helper = subprocess.Popen(["sleep", "307"], start_new_session=True)
with open(sys.argv[1], "a") as out:
    out.write(f"{helper.pid}\n")
time.sleep(300)
"""


def _script(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _pids(path, count: int) -> list[int]:
    return wait_until(lambda: (p := [int(x) for x in path.read_text().split()] if path.exists() else [])
                      and len(p) == count and p, 15, what=f"{count} pids in {path.name}")


def test_tiki_shutdown_ends_processes_that_left_the_tab_session(serve, tmp_path):
    host = serve(BASH_TAB)
    jobs = tmp_path / "jobs"
    daemon, keeper = _script(tmp_path, "daemon.py", DAEMON), _script(tmp_path, "keeper.py", KEEPER)
    shell = tmp_path / "shell.pid"
    host.run("terminal-send", "sh", f"echo $$ > {shell}; python3 {daemon} {jobs} 300; python3 {keeper} {jobs} &")
    pids = _pids(jobs, 2)
    try:
        tab_session = int(wait_file(str(shell)))
        assert all(os.getsid(pid) != tab_session for pid in pids), "each left the tab's session"
        started = time.monotonic()
        assert host.run("shutdown", timeout=20).returncode == 0
        host.proc.wait(20)
        left = [pid for pid in pids if alive(pid)]
        assert left == [], f"processes a tab started outlived `tiki shutdown`: {left}"
        said = next((line for line in host.stderr().splitlines() if "outside their sessions" in line), "")
        assert all(str(pid) in said for pid in pids), f"the host's log names them: {host.stderr()[-600:]}"
        # The daemon ignores SIGTERM: it costs one grace period, not more.
        assert time.monotonic() - started < 6
    finally:
        kill_all(pids)


def test_sigterm_to_the_host_ends_a_daemon_a_tab_started(serve, tmp_path):
    host = serve(BASH_TAB)
    jobs = tmp_path / "jobs"
    host.run("terminal-send", "sh", f"python3 {_script(tmp_path, 'daemon.py', DAEMON)} {jobs} 300")
    pids = _pids(jobs, 1)
    try:
        host.proc.send_signal(signal.SIGTERM)
        host.proc.wait(20)
        assert not alive(pids[0]), "a daemon a tab started outlived the host's SIGTERM"
    finally:
        kill_all(pids)


def test_an_adopted_process_that_exits_is_reaped_while_the_host_runs(serve, tmp_path):
    host = serve(BASH_TAB)
    jobs = tmp_path / "jobs"
    daemon = _script(tmp_path, "daemon.py", DAEMON)
    host.run("terminal-send", "sh", f"python3 {daemon} {jobs} 300; python3 {daemon} {jobs} 0.2")
    lasting, brief = _pids(jobs, 2)
    try:
        with open(f"/proc/{lasting}/stat", "rb") as stat:
            parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
        assert parent == host.proc.pid, "the host adopts a daemon a tab started"
        # Exited, it is collected: no zombie under the host (the old host never had it as a child).
        wait_until(lambda: not os.path.exists(f"/proc/{brief}"), 10, what="the exited daemon to be reaped")
        host.run("terminal-send", "sh", "echo still-$((6*7))")  # the host serves on
        host.wait_text("sh", "still-42")
    finally:
        kill_all([lasting, brief])


def test_the_process_table_from_ps_matches_proc():
    # macOS and the BSDs list processes with `ps` (no /proc): on Linux both ways must agree.
    import subprocess

    from tikitaka.terminals import session

    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        wait_until(lambda: os.path.exists(f"/proc/{child.pid}"), 5, what="the child")
        from_ps = {pid: (parent, sid) for pid, _state, parent, sid in session._ps_table()}
        from_proc = {pid: (parent, sid) for pid, _state, parent, sid in session._linux_table()}
        assert from_ps[child.pid] == from_proc[child.pid] == (os.getpid(), child.pid)
        assert from_ps[os.getpid()] == from_proc[os.getpid()]
    finally:
        child.kill()
        child.wait()


@pytest.mark.skipif(shutil.which("codex") is None, reason="needs Codex CLI (npm @openai/codex; .ci/run installs it)")
def test_tiki_shutdown_ends_the_app_server_daemon_real_codex_starts(serve, tiki_env):
    # Codex CLI (signed out, offline) starts `codex app-server ... --managed-daemon` in a session
    # of its own, and a helper beside it; under tmux both outlive `kill-server`.
    host = serve('[[tab]]\nname = "codex"\ncommand = ["sh", "-c", '
                 '"CODEX_HOME=\\"$(mktemp -d ./codex-home.XXXXXX)\\" exec codex"]\n')
    host.wait_text("codex", "Choose how you want to use Codex", timeout=60)
    daemons = wait_until(lambda: {pid: line for pid, line in leftovers(tiki_env["TIKI_SOCKET"], 0).items()
                                  if "app-server" in line}, 30, 0.2, what="Codex's app-server daemon")
    tab_session = os.getsid(next(iter(leftovers(tiki_env["TIKI_SOCKET"], 0).keys() - daemons.keys()
                                     - {host.proc.pid})))
    assert all(os.getsid(pid) != tab_session for pid in daemons), "the daemon left the tab's session"
    assert host.run("shutdown", timeout=20).returncode == 0
    host.proc.wait(20)
    left = leftovers(tiki_env["TIKI_SOCKET"], grace=5)
    assert left == {}, f"left behind by `tiki shutdown`: {left}"


def test_a_failure_to_collect_is_said_and_does_not_reach_the_host(monkeypatch, capsys):
    # The handler runs in the host's main thread, in its wait for the stop: an exception there
    # would stop the host.
    from tikitaka.terminals import orphans

    def broken() -> list:
        raise RuntimeError("no more room")

    monkeypatch.setattr(orphans, "_children", broken)
    orphans.on_sigchld(signal.SIGCHLD, None)
    assert "collecting the processes it adopted failed (RuntimeError: no more room)" in capsys.readouterr().err


def test_collecting_never_takes_a_tab_leader_whose_fork_is_being_registered():
    # The handler may run in the main thread between the fork and the registration, while that
    # very thread holds the register: it must neither deadlock nor take the child (its tab
    # would lose the exit code). A child in a session of its own, exited, stands for it.
    from tikitaka.terminals import orphans

    def exited_child() -> int:
        pid = os.fork()
        if pid == 0:
            os.setsid()
            os._exit(3)
        wait_until(lambda: not alive(pid), 5, 0.01, what="the child to exit")  # (a zombie until waited for)
        return pid

    pid = exited_child()
    with orphans.forking():
        assert orphans.reap_adopted() == []
    assert os.waitpid(pid, 0) == (pid, 3 << 8), "the child's exit is still there for its owner"
    other = exited_child()  # positive control: unregistered and out of the lock, it is collected
    assert other in orphans.reap_adopted()


def test_a_sigchld_during_a_collection_makes_it_look_again(monkeypatch):
    # The handler may also run inside a collection of the same thread (a burst of exits; the
    # stop's sweep): it returns at once, and the collection looks once more.
    from tikitaka.terminals import orphans

    real, scans, nested = orphans._children, [], []

    def children() -> list:
        scans.append(1)
        if len(scans) == 1:
            started = time.monotonic()
            assert orphans.reap_adopted() == []
            nested.append(time.monotonic() - started)
        return real()

    monkeypatch.setattr(orphans, "_children", children)
    orphans.reap_adopted()
    assert len(scans) == 2 and nested[0] < 0.1, (scans, nested)


def test_children_are_found_on_a_kernel_without_the_lists(monkeypatch):
    # CONFIG_PROC_CHILDREN off: no /proc/PID/task/TID/children; every process is looked at.
    import builtins

    from tikitaka.terminals import orphans

    child = os.fork()
    if child == 0:
        os.setsid()
        os._exit(0)
    try:
        wait_until(lambda: not alive(child), 5, 0.01, what="the child to exit")
        with_lists = orphans._children()

        def no_lists(path, *args, **kwargs):
            if str(path).endswith("/children"):
                raise FileNotFoundError(path)
            return builtins.open(path, *args, **kwargs)

        monkeypatch.setattr(orphans, "open", no_lists, raising=False)
        without = orphans._children()
        assert (child, b"Z", child) in without and (child, b"Z", child) in with_lists
    finally:
        os.waitpid(child, 0)
