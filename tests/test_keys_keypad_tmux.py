"""The keypad, from the field: the real `tiki` UI in tmux, keypad keys sent as a terminal sends
them (`tmux send-keys KP1`: tmux encodes them for the pane's keypad mode), and what a program
in a tab reads compared byte for byte with what the same program reads in a plain pane of the
same tmux. A program that set application keypad mode (DECKPAM, `ESC =`: vim, mc) got `1` for
KP1 in a tab, `ESC O q` in the plain pane: the UI never asked its terminal for the keypad's own
keys, and the host did not follow the tab's keypad mode."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
from conftest import wait_until
from test_keys_field_tmux import received
from tmux_outer import Outer, gone_after

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]
LOGGER = Path(__file__).parent / "keypad_logger.py"
KEYPAD = ["KP0", "KP1", "KP2", "KP3", "KP4", "KP5", "KP6", "KP7", "KP8", "KP9",
          "KP*", "KP+", "KP-", "KP.", "KP/", "KPEnter"]
# Keys that must keep their forms beside it: cursor keys (per DECCKM), F1 (SS3 P, a PF key on a
# VT100 keypad), Alt+letter, a modified arrow, Enter.
OTHERS = ["Up", "Home", "F1", "M-a", "C-Left", "Enter"]


def logger_tab(log: Path, name: str = "kp") -> str:
    return f'[[tab]]\nname = "{name}"\ncommand = ["{sys.executable}", "{LOGGER}", "{log}"]\nrole = "shell"\n'


def keypad_flag(outer: Outer, window: str) -> str:
    """tmux's own view of the program in `window`: "1" once it set application keypad mode."""
    return outer.tmux("display-message", "-p", "-t", window, "#{keypad_flag}").strip()


class Pair:
    """The tab (in the UI in window w0) and the reference pane, each running the keypad logger."""

    def __init__(self, outer: Outer, tab_log: Path, ref_log: Path) -> None:
        self.outer, self.tab_log, self.ref_log = outer, tab_log, ref_log
        self.switches = 0
        outer.window("ref")
        outer.keys("ref", f"exec {sys.executable} {LOGGER} {ref_log}", "Enter")
        outer.wait("ref", "keypad logger ready")

    def switch(self, command: str) -> None:
        """Both programs write the mode sequence `command` stands for (keypad_logger.py)."""
        self.switches += 1
        for window in ("ref", "w0"):
            self.outer.literal(window, command)
            self.outer.wait(window, f"keypad {command[1:]} {self.switches}")

    def key(self, key: str) -> tuple[str, str]:
        """`key` sent to both, one read each: what the reference read, and what the tab read."""
        ref_before, tab_before = len(received(self.ref_log)), len(received(self.tab_log))
        for window in ("ref", "w0"):
            self.outer.keys(window, key)
        ref = wait_until(lambda: len(r := received(self.ref_log)) > ref_before and r, 10, 0.02,
                         what=f"the reference to read {key}")[ref_before:]
        tab = wait_until(lambda: len(t := received(self.tab_log)) >= tab_before + len(ref) and t, 10, 0.02,
                         what=f"the tab to read {key} (the reference read {ref!r})")[tab_before:]
        return ref, tab

    def same(self, keys: list[str], numeric: bool) -> None:
        for key in keys:
            ref, tab = self.key(key)
            if key == "KPEnter" and numeric:
                # tmux 3.3a sends LF for KP Enter in numeric mode; a terminal (xterm) sends CR,
                # the tab's program gets CR, as from the Enter key.
                assert (ref, tab) == ("\n", "\r"), key
            else:
                assert tab == ref, f"{key}: the reference read {ref!r}, the tab {tab!r}"


def test_the_keypad_reaches_a_tab_as_a_plain_tmux_pane_gets_it_in_either_mode(tiki_env, tmp_path):
    tab_log, ref_log = tmp_path / "tab.jsonl", tmp_path / "ref.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log), ready="keypad logger ready")
        pair = Pair(outer, tab_log, ref_log)
        pair.same(KEYPAD + OTHERS, numeric=True)
        assert pair.key("KP1") == ("1", "1")  # (the reference's own word on it)
        pair.switch("!=")  # DECKPAM
        assert pair.key("KP1") == ("\x1bOq", "\x1bOq")
        pair.same(KEYPAD + OTHERS, numeric=False)
        pair.switch("!1h")  # the cursor keys in application mode too (DECCKM)
        pair.same(["KP5", "Up", "Home", "KPEnter", "C-Left"], numeric=False)
        pair.switch("!>")  # DECKPNM: back to numeric (the cursor keys stay in application mode)
        pair.same(["KP5", "Up", "KPEnter", "KP/"], numeric=True)
        pair.switch("!=")
        pair.switch("!c")  # RIS: numeric again, cursor keys and all
        pair.same(["KP7", "KP-", "Up", "KPEnter"], numeric=True)
    finally:
        outer.close()


def test_the_ui_asks_its_terminal_for_the_keypad_while_it_runs_and_gives_it_back(tiki_env, tmp_path):
    """The UI's terminal is in application keypad mode while the UI runs (so the keypad is told
    apart from the digits row, as tmux keeps its own terminal), and numeric again for the shell
    when the UI is stopped (^Z, SIGTSTP) and when it detaches. Meanwhile the keypad still works
    where tikitaka itself reads keys: after the prefix (prefix KP2 shows tab 2) and in the agent
    panel's input line (Textual's parser, which does not know KP= or KP, as SS3)."""
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    outer = Outer(tiki_env)
    try:
        assert keypad_flag(outer, "w0") == "0"  # the shell's
        outer.start_ui(tmp_path / "ws.toml", logger_tab(first) + logger_tab(second, "kp2"), ready="keypad logger ready")
        wait_until(lambda: keypad_flag(outer, "w0") == "1", 10, 0.05, what="the UI to ask for the keypad")
        outer.keys("w0", "C-\\", "KP2")  # tab 2 (tmux sends SS3 r: the UI's terminal is in keypad mode)
        outer.keys("w0", "x")
        wait_until(lambda: received(second) == "x", 10, 0.05, what=f"x in tab 2; tab 1 got {received(first)!r}")
        outer.keys("w0", "C-\\", "a")  # the agent panel's input line (CHT)
        outer.keys("w0", "KP1", "KP*")
        outer.tmux("send-keys", "-t", "w0", "-H", "1b", "4f", "58", "1b", "4f", "6c")  # KP= and KP, (SS3 X, SS3 l)
        outer.keys("w0", "KP9")
        wait_until(lambda: any("CHT" in row and "1*=,9" in row for row in outer.screen("w0").splitlines()), 10, 0.05,
                   what=f"the keypad typing in the panel: {outer.screen('w0')}")
        assert received(first) == "" and received(second) == "x"

        ui = outer.ui_pid("w0")
        assert ui is not None
        os.kill(ui, signal.SIGTSTP)
        outer.wait("w0", "TIKI-EXIT=147")  # stopped; the shell has the terminal
        assert keypad_flag(outer, "w0") == "0"
        outer.keys("w0", "fg", "Enter")
        wait_until(lambda: keypad_flag(outer, "w0") == "1", 10, 0.05, what="the keypad asked for again after fg")
        outer.keys("w0", "C-\\", "d")  # detach
        gone_after([ui])
        assert keypad_flag(outer, "w0") == "0"
    finally:
        outer.close()


def test_a_modified_keypad_key_after_the_prefix_is_one_key(tiki_env, tmp_path):
    """xterm sends Ctrl+KP* as SS3 5 j: after the prefix the UI took `ESC O 5` for the key and
    typed the `j` into the tab (a prefix key not in the table is dropped whole, as in tmux)."""
    tab_log = tmp_path / "tab.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log), ready="keypad logger ready")
        outer.tmux("send-keys", "-t", "w0", "-H", "1c", "1b", "4f", "35", "6a")  # ctrl+\, then SS3 5 j
        outer.keys("w0", "x")
        wait_until(lambda: received(tab_log), 10, 0.05, what="the x")
        assert received(tab_log) == "x", f"the tab read {received(tab_log)!r} after the prefix and Ctrl+KP*"
    finally:
        outer.close()
