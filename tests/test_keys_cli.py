"""Key names through the real `tiki` binary (issue 11): `terminal-key` sends F-keys, Alt chords,
modified arrows, Insert and single characters as xterm does, and `terminal-send --literal`
types text as keystrokes instead of pasting it. A key logger in the tab records the bytes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import wait_until

LOGGER = Path(__file__).with_name("key_logger.py")

# (what we type on the command line, the bytes xterm sends for that key)
KEYS = [
    ("f1", "\x1bOP"), ("F4", "\x1bOS"), ("f5", "\x1b[15~"), ("f10", "\x1b[21~"), ("f12", "\x1b[24~"),
    ("alt+1", "\x1b1"), ("alt+.", "\x1b."), ("M-x", "\x1bx"), ("alt+enter", "\x1b\r"),
    ("ctrl+left", "\x1b[1;5D"), ("shift+up", "\x1b[1;2A"), ("alt+right", "\x1b[1;3C"),
    ("ctrl+shift+left", "\x1b[1;6D"), ("ctrl+f5", "\x1b[15;5~"), ("shift+f1", "\x1b[1;2P"),
    ("insert", "\x1b[2~"), ("delete", "\x1b[3~"), ("ctrl+alt+delete", "\x1b[3;7~"),
    ("ctrl+\\", "\x1c"), ("ctrl+]", "\x1d"), ("ctrl+space", "\x00"),
    (":", ":"), ("A", "A"), ("q", "q"), ("é", "é"), ("S-Tab", "\x1b[Z"),
]


def logger_tab(log: Path, *extra: str) -> str:
    command = json.dumps([sys.executable, str(LOGGER), str(log), *extra])
    return f'[[tab]]\nname = "keys"\ncommand = {command}\n'


def reads(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line)["data"] for line in log.read_text().splitlines()]


def test_terminal_key_sends_every_key_as_xterm_does(serve, tmp_path):
    log = tmp_path / "keys.log"
    host = serve(logger_tab(log))
    host.wait_text("keys", "logger ready")
    for name, expected in KEYS:  # one key per call: each arrives as its own read
        before = len(reads(log))
        result = host.run("terminal-key", "keys", name)
        assert result.returncode == 0, (name, result.stderr)
        got = wait_until(lambda: reads(log)[before:], what=f"the bytes of {name}")
        assert "".join(got) == expected, name


def test_unknown_keys_are_refused_with_the_valid_names_and_nothing_is_sent(serve, tmp_path):
    log = tmp_path / "keys.log"
    host = serve(logger_tab(log))
    host.wait_text("keys", "logger ready")
    for bad in ("f13", "ctrl+enter", "shift+enter", "hyper+q"):
        result = host.run("terminal-key", "keys", "a", bad)
        assert result.returncode == 1 and "f1..f12" in result.stderr and "alt+" in result.stderr, result.stderr
    host.run("terminal-key", "keys", "z")
    wait_until(lambda: reads(log), what="the control key")
    assert reads(log) == ["z"]  # the "a" before each bad key was never sent


def test_send_literal_types_keys_and_plain_send_pastes(serve, tmp_path):
    log = tmp_path / "keys.log"
    host = serve(logger_tab(log, "--bracketed"))
    host.wait_text("keys", "bracketed ready")
    assert host.run("terminal-send", "keys", ":set number", "--no-enter", "--literal").returncode == 0
    wait_until(lambda: "".join(reads(log)) == ":set number", what="the literal text")
    assert host.run("terminal-send", "keys", "pasted", "--no-enter").returncode == 0
    wait_until(lambda: "\x1b[201~" in "".join(reads(log)), what="the paste")
    assert "".join(reads(log)) == ":set number\x1b[200~pasted\x1b[201~"


@pytest.mark.skipif(shutil.which("vim") is None, reason="needs vim")
def test_vim_takes_a_literal_command_and_does_not_insert_it(serve, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("first line\nsecond line\n")
    command = json.dumps(["vim", "--clean", "-n", str(target)])
    host = serve(f'[[tab]]\nname = "vim"\ncommand = {command}\n')
    host.wait_text("vim", "second line")
    assert host.run("terminal-send", "vim", ":set number", "--literal").returncode == 0
    text = host.wait_text("vim", "  1 first line")
    assert "  2 second line" in text and ":set number" not in text.splitlines()[0]
    host.run("terminal-send", "vim", ":q!", "--literal")


def test_typed_cursor_keys_follow_the_childs_cursor_mode():
    """A UI forwards keys as its own terminal sent them; the tab gets its own mode's form."""
    from tikitaka.terminals.keys import cursor_keys

    typed = b"a\x1b[A\x1b[B\x1b[H\x1b[1;5C\x1bOP\x1b[2~"
    assert cursor_keys(typed, app_cursor=True) == b"a\x1bOA\x1bOB\x1bOH\x1b[1;5C\x1bOP\x1b[2~"
    assert cursor_keys(b"\x1bOA\x1bOF\x1bOP", app_cursor=False) == b"\x1b[A\x1b[F\x1bOP"  # F1 stays SS3
    assert cursor_keys(b"plain", app_cursor=True) == b"plain"
