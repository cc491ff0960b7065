"""Field bugs about paths: a relative TIKI_SOCKET, a relative `--cwd`, a host whose own
directory was deleted. Each runs a real `tiki serve` and the real `tiki` CLI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import BASH_TAB, TIKI, Host, wait_until


def test_tiki_inside_a_tab_reaches_a_host_started_with_a_relative_socket(serve, tiki_env, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(tiki_env, TIKI_SOCKET="r4/s")  # relative to the host's directory, tmp_path
    host = serve(BASH_TAB.replace("[[tab]]\n", f'[[tab]]\ncwd = "{elsewhere}"\n'), env=env)
    sent = host.run("terminal-send", "sh", "tiki bot-chat DONE-hello; echo rc=$?")
    assert sent.returncode == 0, sent.stderr
    screen = wait_until(lambda: (text := host.read("sh")) and any(line.startswith("rc=") for line in
                                                                  text.splitlines()) and text, 20, what="rc=")
    assert "rc=0" in screen and "no tiki host" not in screen, screen


def host_and_caller(tiki_env: dict[str, str], tmp_path: Path):
    """A host started in tmp_path/host-home, and `tiki` run from tmp_path/caller."""
    home = tmp_path / "host-home"
    home.mkdir()
    workspace = tmp_path / "ws.toml"
    workspace.write_text(BASH_TAB)
    caller = tmp_path / "caller"
    (caller / "inner").mkdir(parents=True)

    def tiki(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TIKI, *args], env=tiki_env, cwd=caller, capture_output=True, text=True, timeout=60)

    return Host(tiki_env, workspace, home), home, caller, tiki


def test_a_relative_cwd_is_the_callers(tiki_env, tmp_path: Path) -> None:
    host, _, caller, tiki = host_and_caller(tiki_env, tmp_path)
    try:
        opened = tiki("terminal-new", "rel", "--cwd", "inner", "--", "bash", "--norc", "--noprofile")
        assert opened.returncode == 0, opened.stderr
        tabs = {t["name"]: t for t in host.json("terminal-list")["terminals"]}
        assert tabs["rel"]["cwd"] == str(caller / "inner")
    finally:
        host.stop()


def test_a_host_whose_directory_was_deleted_opens_tabs_in_the_callers(tiki_env, tmp_path: Path) -> None:
    host, home, caller, tiki = host_and_caller(tiki_env, tmp_path)
    try:
        shutil.rmtree(home)  # the host's own directory goes away
        opened = tiki("terminal-new", "here", "--", "bash", "--norc", "--noprofile")
        assert opened.returncode == 0, opened.stderr
        home.mkdir()
        tabs = {t["name"]: t for t in host.json("terminal-list")["terminals"]}
        assert tabs["here"]["cwd"] == str(caller)
    finally:
        home.mkdir(exist_ok=True)
        host.stop()
        wait_until(lambda: host.proc.poll() is not None, 15, what="the host to stop")
