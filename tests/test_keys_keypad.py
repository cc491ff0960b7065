"""The keypad in the tab's mode: the UI keeps its terminal in application keypad mode, so KP1
arrives as SS3 q; the host follows each tab's DECKPAM/DECKPNM (`ModeScanner`) and gives a
program in numeric mode the digits (`keys.typed_keys`), one in application mode SS3 as it
came. Before, a program that set DECKPAM (vim, mc) got `1` for KP1, where in a tmux pane it
gets SS3 q. The same through the real UI in tmux: tests/test_keys_keypad_tmux.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import wait_until

from tikitaka.terminals import keys as keymap
from tikitaka.terminals.screen import Screen

LOGGER = Path(__file__).parent / "keypad_logger.py"
# xterm's ctlseqs, "VT100-style keypad": application mode (SS3 and a letter) -> numeric mode
XTERM_KEYPAD = {
    **{f"\x1bO{chr(ord('p') + n)}": str(n) for n in range(10)},
    "\x1bOj": "*", "\x1bOk": "+", "\x1bOl": ",", "\x1bOm": "-", "\x1bOn": ".", "\x1bOo": "/",
    "\x1bOX": "=", "\x1bOM": "\r", "\x1bOI": "\t", "\x1bO ": " ",
}


@pytest.mark.parametrize(("ss3", "plain"), XTERM_KEYPAD.items(), ids=[repr(k[2]) for k in XTERM_KEYPAD])
def test_each_keypad_key_is_its_character_in_numeric_mode_and_ss3_in_application_mode(ss3, plain):
    for app_cursor in (False, True):
        assert keymap.typed_keys(ss3.encode(), app_cursor, app_keypad=False) == plain.encode()
        assert keymap.typed_keys(ss3.encode(), app_cursor, app_keypad=True) == ss3.encode()


def test_other_keys_keep_their_forms_whatever_the_keypad_mode():
    """The cursor keys still follow DECCKM; F1-F4 (SS3 P-S, the keypad's PF keys), modified
    keys, text and an Alt+O typed alone are no keypad keys."""
    keys = b"a\x1b[A\x1bOB\x1bOP\x1bOS\x1b[1;5C\x1b[2~\x1bO\x1b1=>"
    for app_keypad in (False, True):
        assert keymap.typed_keys(keys, False, app_keypad) == b"a\x1b[A\x1b[B\x1bOP\x1bOS\x1b[1;5C\x1b[2~\x1bO\x1b1=>"
        assert keymap.typed_keys(keys, True, app_keypad) == b"a\x1bOA\x1bOB\x1bOP\x1bOS\x1b[1;5C\x1b[2~\x1bO\x1b1=>"
    assert keymap.typed_keys(b"1\x1bOq\x1bOA", True, False) == b"11\x1bOA"  # both modes in one read


def test_a_modified_keypad_key_is_its_character_in_numeric_mode_with_alt_as_esc():
    """xterm sends Ctrl+KP* as SS3 5 j in application keypad mode; in numeric mode Ctrl or Shift
    change no keypad character, and Alt is ESC first, as with any key."""
    modified = b"\x1bO5j\x1bO2q\x1bO3q\x1bO7M"  # Ctrl+KP*, Shift+KP1, Alt+KP1, Ctrl+Alt+KP Enter
    assert keymap.typed_keys(modified, False, app_keypad=False) == b"*1\x1b1\x1b\r"
    assert keymap.typed_keys(modified, False, app_keypad=True) == modified


def test_the_screen_follows_the_keypad_mode_the_program_sets():
    screen = Screen(40, 5)
    assert screen.app_keypad is False  # numeric, as a terminal starts
    screen.feed(b"\x1b=")  # alone in its read (the scanners' quick look must not skip it)
    assert screen.app_keypad is True
    screen.feed(b"text \x1b>more")
    assert screen.app_keypad is False
    screen.feed(b"\x1b[31mred\x1b")  # cut between two reads
    screen.feed(b"=\x1b[0m")
    assert screen.app_keypad is True
    screen.feed(b"\x1bc")  # RIS: numeric
    assert screen.app_keypad is False
    screen.feed(b"\x1b=\x1b[!p")  # DECSTR: numeric, as in xterm and the VT510 (tmux 3.3a keeps it)
    assert screen.app_keypad is False
    screen.feed(b"\x1b[?66h")  # DECNKM, xterm's other spelling of it
    assert screen.app_keypad is True
    assert screen.feed(b"\x1b[?66$p") == b"\x1b[?66;1$y"  # DECRQM is answered for it
    screen.feed(b"\x1b[?66l")
    assert screen.app_keypad is False
    screen.feed(b"\x1b[>4;1m\x1b[=1u")  # other sequences with = and > in them are no keypad modes
    assert screen.app_keypad is False


def received(log: Path) -> str:
    if not log.exists():
        return ""
    return "".join(json.loads(line)["data"] for line in log.read_text().splitlines())


def test_a_tab_gives_its_program_the_keypad_in_the_mode_it_set(serve, tmp_path):
    """Keys a UI forwards (the session's `input`, what the UI sends for every key) as a terminal
    in application keypad mode sends them; the program gets the form its own mode asks for.
    A paste is never translated; a restart leaves the new program in numeric mode."""
    from ui_protocol_helpers import Session

    log = tmp_path / "keys.jsonl"
    host = serve(f'[[tab]]\nname = "kp"\ncommand = ["{sys.executable}", "{LOGGER}", "{log}"]\nrole = "shell"\n')
    host.wait_text("kp", "keypad logger ready")
    session = Session(host.env)
    tab = session.tabs["kp"]
    typed = "\x1bOq\x1bOy\x1bOj\x1bOX\x1bOM\x1bOA"
    switches = 0

    def switch(command: str) -> None:
        nonlocal switches
        switches += 1
        session.client.input(tab, command.encode())
        host.wait_text("kp", f"keypad {command[1:]} {switches}")

    def keys(want: str) -> None:
        before = len(received(log))
        session.client.input(tab, typed.encode())
        got = wait_until(lambda: len(r := received(log)) >= before + len(want) and r, 10, 0.02,
                         what=f"the program to read {want!r}")
        assert got[before:] == want

    numeric, application = "19*=\r\x1b[A", typed.replace("\x1bOA", "\x1b[A")  # (SS3 as the terminal sent it)
    try:
        keys(numeric)  # the default
        switch("!=")
        keys(application)
        session.client.paste(tab, "\x1bOq")  # (a paste: as it came, in either mode)
        wait_until(lambda: received(log).endswith("\x1b[A\x1bOq"), 10, 0.02, what=f"the paste: {received(log)!r}")
        for reset, again in (("!>", "!66h"), ("!c", "!="), ("!s", "!="), ("!66l", "!=")):
            switch(reset)  # DECKPNM, RIS, DECSTR, DECNKM off: numeric ...
            keys(numeric)
            switch(again)  # ... DECNKM on, DECKPAM: application
            keys(application)
        assert host.run("terminal-restart", "kp").returncode == 0  # a new program: numeric
        wait_until(lambda: "keypad logger ready" in host.read("kp").rpartition("restarted")[2], 15, 0.05,
                   what="the program after the restart")
        keys(numeric)
    finally:
        session.client.close()
