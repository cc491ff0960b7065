"""The log of a host started in the background stays bounded, and the last one stays readable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import TIKI, host_log

START = ("import os, pathlib; from tikitaka.app.host_start import ensure_host; "
         "print(ensure_host(pathlib.Path(os.environ['TIKI_SOCKET']), None)[0])")


def _start(env: dict[str, str], cwd: Path) -> None:
    result = subprocess.run([sys.executable, "-c", START], env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=90)
    assert result.stdout.strip() == "True", result.stderr


def test_a_background_start_begins_a_new_log_once_the_old_one_passed_a_megabyte(tiki_env, tmp_path):
    state = Path(tiki_env["TIKI_STATE_DIR"])
    log_path = host_log(tiki_env)
    (tmp_path / "tikitaka.toml").write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    state.mkdir(parents=True, mode=0o700)
    small = "--- an earlier start\nsome line\n"
    log_path.write_text(small)
    try:
        _start(tiki_env, tmp_path)  # a small log is appended to
        log = log_path.read_text()
        assert log.startswith(small) and "started in the background by tiki" in log
        assert not log_path.with_name(log_path.name + ".1").exists()
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
    big = "--- an old start\n" + ("y" * 99 + "\n") * 10_100 + "the last old line\n"  # over 1 MB
    log_path.write_text(big)
    try:
        _start(tiki_env, tmp_path)
        assert log_path.with_name(log_path.name + ".1").read_text() == big  # nothing of it lost
        log = log_path.read_text()
        assert log.startswith("--- ") and "started in the background by tiki" in log and len(log) < 10_000
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)


def test_hosts_on_two_sockets_keep_their_logs_apart(tiki_env, tmp_path):
    """Two workspaces at once run two hosts (a socket each) that share the state directory:
    `tiki log` showed the other host's events among its own, and a start that failed quoted
    whatever the other host had last written to the one host.log."""
    envs = {"alpha": tiki_env, "beta": dict(tiki_env, TIKI_SOCKET=str(Path(tiki_env["TIKI_SOCKET"]).parent / "b"))}
    try:
        for name, env in envs.items():
            folder = tmp_path / name
            folder.mkdir()
            (folder / "tiki.toml").write_text(f'[[tab]]\nname = "{name}"\ncommand = ["bash", "--norc", "--noprofile"]\n')
            _start(env, folder)
            said = subprocess.run([TIKI, "bot-chat", f"hello from {name}", "--from", "someone"], env=env,
                                  capture_output=True, text=True, timeout=30)
            assert said.returncode == 0, said.stderr
        for name, env in envs.items():
            log = subprocess.run([TIKI, "log"], env=env, capture_output=True, text=True, timeout=30).stdout
            other = "beta" if name == "alpha" else "alpha"
            assert f"hello from {name}" in log and f"hello from {other}" not in log, (name, log)
        host_logs = {name: host_log(env) for name, env in envs.items()}
        assert len(set(host_logs.values())) == 2, host_logs
        for name, log in host_logs.items():
            assert log.read_text().count("started in the background by tiki") == 1, (name, log.read_text())
    finally:
        for env in envs.values():
            subprocess.run([TIKI, "shutdown"], env=env, capture_output=True, timeout=60)
