"""Field bugs in the workspace file's life: tabs that fail to start, hand edits made while the
host runs, and a disk that fills up. Each runs a real `tiki serve` and the real `tiki` CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import BASH_TAB, TIKI, Host, event_log

BASH = '["bash", "--norc", "--noprofile"]'


def test_tabs_that_fail_to_start_are_kept_reported_and_restartable(serve, tmp_path: Path) -> None:
    later = tmp_path / "not-mounted-yet"
    host = serve(
        '[[tab]]\nname = "Claude"\ncommand = ["no-such-program-tiki-test"]  # not on PATH yet\n'
        f'[[tab]]\nname = "proj"\ncommand = {BASH}\ncwd = "{later}"\n' + BASH_TAB
    )
    tabs = {t["name"]: t for t in host.json("terminal-list")["terminals"]}
    assert list(tabs) == ["Claude", "proj", "sh"]
    assert "no-such-program-tiki-test" in tabs["Claude"]["failed"]
    assert str(later) in tabs["proj"]["failed"]
    assert tabs["sh"]["failed"] is None and tabs["sh"]["running"]

    listing = host.run("terminal-list").stdout
    assert "failed" in listing.splitlines()[0] and "failed" in listing.splitlines()[1]
    status = host.run("status")
    assert status.returncode == 0, status.stderr
    assert "all services ok" not in status.stdout
    assert "Claude" in status.stdout and "proj" in status.stdout

    assert host.run("terminal-new", "other", "--", "bash", "--norc", "--noprofile").returncode == 0
    saved = host.workspace.read_text()
    for name in ("Claude", "proj", "sh", "other"):
        assert f'name = "{name}"' in saved, saved
    assert "no-such-program-tiki-test" in saved and str(later) in saved

    later.mkdir()  # the drive is mounted: the tab starts when restarted
    restarted = host.run("terminal-restart", "proj")
    assert restarted.returncode == 0, restarted.stderr
    proj = next(t for t in host.json("terminal-list")["terminals"] if t["name"] == "proj")
    assert proj["running"] and proj["failed"] is None
    still = host.run("terminal-restart", "Claude")
    assert still.returncode != 0 and "no-such-program-tiki-test" in still.stderr


def test_a_hand_edit_made_while_the_host_runs_is_not_overwritten(serve) -> None:
    host = serve(BASH_TAB)
    edited = host.workspace.read_text() + f'\n# my note\n[[tab]]\nname = "mine"\ncommand = {BASH}\n'
    host.workspace.write_text(edited)
    opened = host.run("terminal-new", "other", "--", "bash", "--norc", "--noprofile")
    assert opened.returncode == 0, opened.stderr
    assert host.workspace.read_text() == edited  # the user's version stays
    beside = host.workspace.with_name(host.workspace.stem + ".host.toml")
    assert 'name = "other"' in beside.read_text()  # the host's, beside it
    log = host.run("log").stdout
    assert "edited while the host ran" in log and str(beside) in log
    assert "workspace-file" in host.run("status").stdout

    # Once the user's file is the host's again (they took its version), saving goes on as before.
    host.workspace.write_text(beside.read_text())
    host.run("terminal-close", "other")
    assert host.run("terminal-new", "third", "--", "bash", "--norc", "--noprofile").returncode == 0
    assert 'name = "third"' in host.workspace.read_text()



def test_saving_keeps_what_the_user_wrote_in_the_workspace(serve, tmp_path: Path) -> None:
    """A project's tiki.toml, with comments, `~` and the defaults left out: one `terminal-new`
    rewrote all of it -- comments gone, every command spread over lines, `cwd` and `role`
    written into each tab, `~` spelt out (a file shared in git changed for everyone). Now
    only the tabs that changed change; a new tab is written as briefly as the user would."""
    home_dir = Path.home()
    mine = ("# Our tabs. Keep the reviewer last.\n"
            f'[[tab]]\nname = "sh"\ncommand = {BASH}   # plain shell\n\n'
            '[[tab]]\nname = "reviewer"  # reads the diffs\ncommand = ["cat"]\nrole = "peer"\n'
            f'cwd = "~"\n')
    host = serve(mine)
    assert host.workspace.read_text() == mine  # (nothing to save yet)
    elsewhere = tmp_path / "elsewhere"  # (not the host's own directory, which a tab without `cwd` has)
    elsewhere.mkdir()
    assert host.run("terminal-new", "extra", "--cwd", str(elsewhere), "--", "bash", "--norc").returncode == 0
    assert host.run("terminal-rename", "reviewer", "critic").returncode == 0
    saved = host.workspace.read_text()
    assert saved.startswith("# Our tabs. Keep the reviewer last.\n"), saved
    assert f'command = {BASH}   # plain shell\n' in saved and 'name = "critic"  # reads the diffs\n' in saved
    assert 'cwd = "~"\n' in saved and str(home_dir) + '"' not in saved
    assert saved.count("role =") == 1  # the reviewer's own; the defaults are not spelt out
    assert saved.endswith(f'cwd = "~"\n\n[[tab]]\nname = "extra"\ncommand = ["bash", "--norc"]\ncwd = "{elsewhere}"\n'), saved
    assert host.run("terminal-close", "sh").returncode == 0
    saved = host.workspace.read_text()
    assert "# Our tabs." in saved and "plain shell" not in saved and 'name = "sh"' not in saved
    assert [t["name"] for t in host.json("terminal-list")["terminals"]] == ["critic", "extra"]

@pytest.fixture
def small_disk(tmp_path: Path):
    """A 64 KiB tmpfs (we run as root in the field tests' machine); skipped where it cannot be mounted."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    try:
        with open(filler, "wb", buffering=0) as handle:
            while True:
                handle.write(b"\0" * 512)
    except OSError:  # full
        pass
    return filler


def start_on(disk: Path, tiki_env: dict[str, str], tmp_path: Path) -> Host:
    """A host whose state directory and workspace file are on `disk`."""
    env = dict(tiki_env, TIKI_STATE_DIR=str(disk / "state"))
    workspace = disk / "ws.toml"
    workspace.write_text(BASH_TAB)
    return Host(env, workspace, tmp_path)


def test_a_save_that_fails_on_a_full_disk_is_reported(tiki_env, small_disk: Path, tmp_path: Path) -> None:
    host = start_on(small_disk, tiki_env, tmp_path)
    try:
        fill(small_disk)
        opened = host.run("terminal-new", "keepme", "--", "bash", "--norc", "--noprofile")
        assert opened.returncode != 0 and "not saved" in opened.stderr, opened
        assert "No space left on device" in opened.stderr
        assert "keepme" in [t["name"] for t in host.json("terminal-list")["terminals"]]  # the change stands
        assert "workspace-file" in host.run("status").stdout
    finally:
        host.stop()


def test_an_event_that_did_not_fit_leaves_no_half_line(tiki_env, small_disk: Path, tmp_path: Path) -> None:
    host = start_on(small_disk, tiki_env, tmp_path)
    try:
        filler = fill(small_disk)
        for i in range(5):  # events that do not fit, some of them partly
            host.run("bot-chat", f"msg {i} " + "x" * 3000, "--from", "me")
        filler.unlink()
        assert host.run("bot-chat", "IMPORTANT after the disk was freed", "--from", "me").returncode == 0
        assert "IMPORTANT after the disk was freed" in host.run("log", "--last", "3").stdout
        for line in event_log(host.env).read_text().splitlines():
            json.loads(line)  # every line whole
    finally:
        host.stop()


def test_a_second_host_on_a_workspace_another_host_serves_is_refused(serve, tiki_env, tmp_path: Path) -> None:
    """Two workspaces at once take two hosts (TIKI_SOCKET); two hosts on one workspace file
    each saved their own tabs over the other's (the last change won, and a crash brought back
    the other host's tabs). The second is refused, naming the host to attach to instead."""
    first = serve(BASH_TAB)
    first.run("terminal-new", "mine", "--", "bash", "--norc", "--noprofile")
    saved = first.workspace.read_text()
    other = dict(tiki_env, TIKI_SOCKET=str(tmp_path / "other.sock"))
    second = subprocess.run([TIKI, "serve", "--workspace", str(first.workspace)], env=other, capture_output=True,
                            text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert second.returncode != 0
    said = second.stderr
    assert str(first.workspace) in said and tiki_env["TIKI_SOCKET"] in said and str(first.proc.pid) in said, said
    assert f"TIKI_SOCKET={tiki_env['TIKI_SOCKET']} tiki" in said, said
    assert first.workspace.read_text() == saved
    assert [t["name"] for t in first.json("terminal-list")["terminals"]] == ["sh", "mine"]
    # Another workspace beside it is what a second socket is for.
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text(BASH_TAB)
    beside = Host(other, elsewhere, tmp_path)
    try:
        assert [t["name"] for t in beside.json("terminal-list")["terminals"]] == ["sh"]
    finally:
        beside.stop()
