"""The log of a host started in the background stays bounded, and the last one stays readable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import TIKI

START = ("import os, pathlib; from tikitaka.app.host_start import ensure_host; "
         "print(ensure_host(pathlib.Path(os.environ['TIKI_SOCKET']), None)[0])")


def _start(env: dict[str, str], cwd: Path) -> None:
    result = subprocess.run([sys.executable, "-c", START], env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=90)
    assert result.stdout.strip() == "True", result.stderr


def test_a_background_start_begins_a_new_log_once_the_old_one_passed_a_megabyte(tiki_env, tmp_path):
    state = Path(tiki_env["TIKI_STATE_DIR"])
    (tmp_path / "tikitaka.toml").write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    state.mkdir(parents=True, mode=0o700)
    small = "--- an earlier start\nsome line\n"
    (state / "host.log").write_text(small)
    try:
        _start(tiki_env, tmp_path)  # a small log is appended to
        log = (state / "host.log").read_text()
        assert log.startswith(small) and "started in the background by tiki" in log
        assert not (state / "host.log.1").exists()
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
    big = "--- an old start\n" + ("y" * 99 + "\n") * 10_100 + "the last old line\n"  # over 1 MB
    (state / "host.log").write_text(big)
    try:
        _start(tiki_env, tmp_path)
        assert (state / "host.log.1").read_text() == big  # nothing of it lost
        log = (state / "host.log").read_text()
        assert log.startswith("--- ") and "started in the background by tiki" in log and len(log) < 10_000
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
