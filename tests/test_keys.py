"""The key table (issue 11): every spelling people and models use maps to one canonical name,
every name the coordinator is offered has bytes, and the bytes are what xterm sends (the same
bytes tmux sends for its own key names: tests/test_fidelity drives both with them)."""

from __future__ import annotations

import pytest

from tikitaka.protocol.catalogue import TOOLS
from tikitaka.protocol.keys import KEY_NAMES, TOOL_KEYS, UnknownKey, canonical_key
from tikitaka.terminals.keys import key_bytes, text_keystrokes


@pytest.mark.parametrize("written, canonical", [
    ("Enter", "enter"), ("RETURN", "enter"), ("C-c", "ctrl+c"), ("^C", "ctrl+c"), ("Ctrl-Z", "ctrl+z"),
    ("control+a", "ctrl+a"), ("M-x", "alt+x"), ("meta+.", "alt+."), ("Alt+Enter", "alt+enter"),
    ("S-Tab", "shift+tab"), ("backtab", "shift+tab"), ("F5", "f5"), ("shift+ctrl+left", "ctrl+shift+left"),
    ("alt-shift-up", "alt+shift+up"), ("ctrl+alt+del", "ctrl+alt+delete"), ("ins", "insert"),
    ("A", "A"), ("shift+a", "A"), ("alt+A", "alt+A"), (":", ":"), (" ", "space"), ("é", "é"),
    ("+", "+"), ("alt++", "alt++"), ("ctrl+[", "ctrl+["), ("page up", "pageup"),
])
def test_spellings(written, canonical):
    assert canonical_key(written) == canonical


@pytest.mark.parametrize("bad", ["f13", "ctrl+enter", "shift+enter", "ctrl+shift+a", "hyper+q", "", "\x03", "ctrl++"])
def test_meaningless_keys_are_refused_with_the_list(bad):
    with pytest.raises(UnknownKey) as info:
        canonical_key(bad)
    assert "f1..f12" in str(info.value) and "any single character" in str(info.value)


def test_every_offered_key_is_canonical_and_has_bytes():
    assert set(KEY_NAMES) <= set(TOOL_KEYS)
    for name in TOOL_KEYS:
        assert canonical_key(name) == name and key_bytes(name), name


@pytest.mark.parametrize("name, normal, application", [
    ("up", b"\x1b[A", b"\x1bOA"), ("home", b"\x1b[H", b"\x1bOH"), ("f1", b"\x1bOP", b"\x1bOP"),
    ("ctrl+up", b"\x1b[1;5A", b"\x1b[1;5A"), ("shift+end", b"\x1b[1;2F", b"\x1b[1;2F"),
    ("alt+pageup", b"\x1b[5;3~", b"\x1b[5;3~"), ("ctrl+shift+f12", b"\x1b[24;6~", b"\x1b[24;6~"),
    ("alt+ctrl+f2", b"\x1b[1;7Q", b"\x1b[1;7Q"), ("alt+shift+tab", b"\x1b\x1b[Z", b"\x1b\x1b[Z"),
    ("ctrl+_", b"\x1f", b"\x1f"), ("ctrl+/", b"\x1f", b"\x1f"), ("ctrl+^", b"\x1e", b"\x1e"),
    ("alt+backspace", b"\x1b\x7f", b"\x1b\x7f"), ("alt+é", "\x1bé".encode(), "\x1bé".encode()),
])
def test_bytes_as_xterm_sends_them(name, normal, application):
    assert key_bytes(name) == normal and key_bytes(name, app_cursor=True) == application


def test_literal_text_is_keystrokes_with_enter_for_line_breaks():
    assert text_keystrokes(":set nu\n") == b":set nu\r"
    assert text_keystrokes("a\r\nb\nc") == b"a\rb\rc"
    assert b"\x1b[200~" not in text_keystrokes("\x1b[201~")  # (only what was given: nothing is added)


def test_the_coordinator_validates_keys_by_the_same_table():
    model = TOOLS["send_key"]
    assert model(tab="sh", key="C-c").key == "ctrl+c" and model(tab="sh", key="F5").key == "f5"
    with pytest.raises(ValueError):
        model(tab="sh", key="f13")
