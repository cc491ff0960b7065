"""A tab's child lifecycle (issue 8, item 10): "exited" means the process exited (and was
reaped, with its real exit code), and ending a tab or the host ends every process of the tab's
session -- also jobs in their own process groups that ignore SIGHUP (and even SIGTERM)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from conftest import BASH_TAB, wait_until
from term_helpers import alive, kill_all, session_members, wait_file

CLOSES_STDIO = r"""
import os, sys, time
open(sys.argv[1], "w").write(f"{os.getpid()}\n")
os.close(0); os.close(1); os.close(2)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
os._exit(7)
"""


def _tab(host, name: str) -> dict:
    return next(t for t in host.json("terminal-list")["terminals"] if t["name"] == name)


def test_child_that_closes_its_stdio_runs_until_it_exits_then_is_reaped(serve, tmp_path):
    pid_file, flag = tmp_path / "child.pid", tmp_path / "exit-now"
    command = ["python3", "-c", CLOSES_STDIO, str(pid_file), str(flag)]
    host = serve(f'[[tab]]\nname = "quiet"\ncommand = {json.dumps(command)}\n')
    pid = int(wait_file(str(pid_file)))
    started = time.monotonic()
    # The old code declared such a tab exited after 5 s; 6 s later the child still runs.
    while time.monotonic() - started < 6.0:
        tab = _tab(host, "quiet")
        assert tab["running"] is True and tab["exit_code"] is None, tab
        time.sleep(0.5)
    assert alive(pid)
    flag.touch()  # positive control: the real exit is reported, with the real code
    wait_until(lambda: not _tab(host, "quiet")["running"], 10, what="the tab to show the exit")
    assert _tab(host, "quiet")["exit_code"] == 7
    assert not os.path.exists(f"/proc/{pid}"), "the child was not reaped (zombie)"


JOBS = (
    # Five jobs of the tab's session, each in its own process group (job control), each
    # ignoring the hangup that ends the shell; the last one ignores SIGTERM too.
    "for i in 1 2 3; do nohup sleep 300 >/dev/null 2>&1 & echo $! >> {jobs}; done",
    "(trap '' HUP; exec sleep 301) & echo $! >> {jobs}",
    "sh -c 'echo $$ >> {jobs}; trap \"\" HUP TERM; exec sleep 302'",
)


def _start_jobs(host, tmp_path: Path) -> tuple[int, list[int]]:
    jobs = tmp_path / "jobs"
    bash_pid_file = tmp_path / "bash.pid"
    host.run("terminal-send", "sh", f"echo $$ > {bash_pid_file}")
    bash_pid = int(wait_file(str(bash_pid_file)))
    for line in JOBS:
        assert host.run("terminal-send", "sh", line.format(jobs=jobs)).returncode == 0
    pids = wait_until(lambda: (p := [int(x) for x in jobs.read_text().split()] if jobs.exists() else [])
                      and len(p) == 5 and p, 15, what="five jobs started")
    members = wait_until(lambda: (m := session_members(bash_pid)) and set(pids) <= set(m) and m, 10,
                         what="the jobs in the tab's session")
    groups = {os.getpgid(pid) for pid in pids}
    assert len(groups) == 5 and os.getpgid(bash_pid) not in groups, "each job has its own process group"
    return bash_pid, sorted(set(members))


def _assert_session_gone(bash_pid: int, pids: list[int]) -> None:
    left = [pid for pid in pids if alive(pid)]
    assert left == [], f"processes of the tab's session survived: {left}"
    assert session_members(bash_pid) == []


def test_sigterm_to_the_host_ends_every_process_of_the_tab_session(serve, tmp_path):
    host = serve(BASH_TAB)
    bash_pid, pids = _start_jobs(host, tmp_path)
    started = time.monotonic()
    try:
        host.proc.send_signal(signal.SIGTERM)
        host.proc.wait(20)
        took = time.monotonic() - started
        _assert_session_gone(bash_pid, pids)
        # One job ignores SIGTERM: it costs the grace period (1 s), not more.
        assert took < 6, f"shutdown took {took:.1f} s"
        print(f"\nSIGTERM -> host exit with {len(pids)} session processes: {took:.2f} s")
    finally:
        kill_all(pids)


def test_tiki_shutdown_and_closing_a_tab_end_its_session(serve, tmp_path):
    host = serve(BASH_TAB + '[[tab]]\nname = "other"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\n')
    bash_pid, pids = _start_jobs(host, tmp_path)
    try:
        assert host.run("terminal-close", "sh").returncode == 0
        wait_until(lambda: not any(alive(pid) for pid in pids), 10, what="the closed tab's jobs to end")
        _assert_session_gone(bash_pid, pids)
        host.run("terminal-send", "other", "echo other-$((2+2))")  # the host serves on
        host.wait_text("other", "other-4")
        other_pid_file = tmp_path / "other.pid"
        host.run("terminal-send", "other", f"nohup sleep 303 >/dev/null 2>&1 & echo $! > {other_pid_file}")
        other_job = int(wait_file(str(other_pid_file)))
        started = time.monotonic()
        assert host.run("shutdown", timeout=20).returncode == 0
        host.proc.wait(20)
        assert not alive(other_job), "a nohup job of the last tab survived `tiki shutdown`"
        assert time.monotonic() - started < 6
    finally:
        kill_all(pids)


def test_jobs_left_behind_by_an_exited_shell_end_with_the_host(serve, tmp_path):
    # The shell exits (the tab shows "exited") but a nohup job of its session runs on:
    # host shutdown still ends it (its session id outlives the shell).
    host = serve(BASH_TAB)
    job_file = tmp_path / "job.pid"
    host.run("terminal-send", "sh", f"nohup sleep 304 >/dev/null 2>&1 & echo $! > {job_file}; exit 3")
    job = int(wait_file(str(job_file)))
    wait_until(lambda: not _tab(host, "sh")["running"], 10, what="the shell to exit")
    assert _tab(host, "sh")["exit_code"] == 3
    assert alive(job)
    try:
        host.proc.send_signal(signal.SIGTERM)
        host.proc.wait(20)
        assert not alive(job), "a job of an exited tab's session survived the host"
    finally:
        try:
            os.kill(job, signal.SIGKILL)
        except ProcessLookupError:
            pass
