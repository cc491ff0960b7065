"""Small field bugs: `tiki -t ²`, what `tiki doctor` lets through, wide tab names in the tab
list, private log files, and a host that is stopped (SIGSTOP). Real hosts, the real CLI."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import BASH_TAB, TIKI, event_log, hide_host_record, host_log, sigstop


def in_a_terminal(command: str, env: dict[str, str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run `command` with a pseudo-terminal as its stdin and stdout (the UI insists on one)."""
    return subprocess.run(["script", "-qec", command, "/dev/null"], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_a_tab_number_in_another_script_is_no_crash(serve, tmp_path: Path) -> None:
    host = serve(BASH_TAB)
    result = in_a_terminal(f"{TIKI} -t ²", host.env, tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    assert "no tab '²'" in result.stdout + result.stderr


def doctor(env: dict[str, str], tmp_path: Path, **overrides: str) -> str:
    result = subprocess.run([TIKI, "doctor"], env=dict(env, **overrides), cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    return result.stdout


def line_of(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.split(":")[0].split()[-1] == name)


@pytest.mark.parametrize("kind", ["too long", "a directory", "a regular file"])
def test_doctor_fails_a_socket_path_the_host_cannot_use(tiki_env, tmp_path: Path, kind: str) -> None:
    if kind == "too long":
        socket = tmp_path / ("x" * 120) / "s"
    else:
        socket = tmp_path / "sock"
        socket.mkdir() if kind == "a directory" else socket.write_text("notes")
    line = line_of(doctor(tiki_env, tmp_path, TIKI_SOCKET=str(socket)), "socket")
    assert line.startswith("FAIL"), line
    if kind == "too long":
        assert not socket.parent.exists()  # the doctor makes nothing


def test_doctor_fails_a_state_directory_that_cannot_be_made(tiki_env, tmp_path: Path) -> None:
    line = line_of(doctor(tiki_env, tmp_path, TIKI_STATE_DIR="/proc/nope"), "directories")
    assert line.startswith("FAIL") and "/proc/nope" in line, line


def test_doctor_fails_a_gguf_path_that_is_no_gguf(tiki_env, tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"<html>not found</html>")
    config = Path(tiki_env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f'[coordinator]\nbackend = "embedded"\ngguf_path = "{fake}"\n')
    output = doctor(tiki_env, tmp_path)
    assert any(line.startswith("FAIL") and str(fake) in line and "GGUF" in line for line in output.splitlines()), output


def test_terminal_list_aligns_wide_names(serve) -> None:
    host = serve(BASH_TAB)
    assert host.run("terminal-new", "日本語", "--", "bash", "--norc", "--noprofile").returncode == 0
    rows = host.run("terminal-list").stdout.splitlines()
    role_columns = set()
    for row in rows:
        before_role = row[: row.index("shell")]
        role_columns.add(sum(2 if "\u3040" <= c <= "\u9fff" else 1 for c in before_role))
    assert len(role_columns) == 1, rows


def test_the_logs_are_private(serve, tiki_env, tmp_path: Path) -> None:
    host = serve(BASH_TAB)
    host.run("bot-chat", "hello", "--from", "me")
    assert os.stat(event_log(tiki_env)).st_mode & 0o077 == 0
    # host.log: written by a host `tiki` starts in the background
    env = dict(tiki_env, TIKI_SOCKET=tiki_env["TIKI_SOCKET"] + "2")
    try:
        in_a_terminal(f"{TIKI} -t nosuchtab", env, tmp_path)
        assert os.stat(host_log(env)).st_mode & 0o077 == 0
    finally:
        subprocess.run([TIKI, "shutdown"], env=env, capture_output=True, timeout=30)


def test_a_stopped_host_is_named_as_such(serve, tmp_path: Path) -> None:
    host = serve(BASH_TAB)
    pid = host.proc.pid
    sigstop(pid)
    try:
        began = time.monotonic()
        sent = host.run("terminal-send", "sh", "hello", timeout=120)
        assert time.monotonic() - began < 5  # (a stopped host is seen as such: no timeout waited out)
        assert sent.returncode == 4 and "is stopped" in sent.stderr and f"kill -CONT {pid}" in sent.stderr
        ui = in_a_terminal(shlex.join([TIKI, "-t", "sh"]), host.env, tmp_path)
        said = ui.stdout + ui.stderr
        assert "is stopped" in said and f"kill -CONT {pid}" in said and "already running" not in said, said
        for command in (["ask", "what now?"], ["bot-chat", "DONE(1)", "--from", "Claude"], ["terminal-list"]):
            began = time.monotonic()  # (`ask` has no timeout at all: it waited for ever)
            done = host.run(*command, timeout=60)
            assert time.monotonic() - began < 5 and done.returncode == 4 and "is stopped" in done.stderr, (command, done)
    finally:
        os.kill(pid, signal.SIGCONT)


def test_a_host_that_answers_nothing_and_is_not_seen_stopped_is_named_after_the_wait(serve) -> None:
    """The other way a host can fail to answer: hung, or stopped where tiki cannot tell (here
    its record of itself is gone, so nothing names its pid). The quick question waits out its
    10 s and says what to do, instead of the send waiting its whole queue time."""
    host = serve(BASH_TAB)
    hide_host_record(host.env)
    sigstop(host.proc.pid)
    try:
        began = time.monotonic()
        sent = host.run("terminal-send", "sh", "hello", timeout=120)
        took = time.monotonic() - began
    finally:
        os.kill(host.proc.pid, signal.SIGCONT)
    assert sent.returncode == 4 and "does not answer (stopped or hung)" in sent.stderr and "kill -CONT" in sent.stderr
    assert 9 < took < 30, took
