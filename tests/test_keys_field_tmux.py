"""Keyboard input from the field: the real `tiki` UI in tmux, and what the program in a tab
reads compared byte for byte with what the same program reads in a plain pane of the same
tmux (the reference), for the cases the first field test found wrong."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import wait_until
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]
LOGGER = Path(__file__).parent / "key_logger.py"


def received(log: Path) -> str:
    if not log.exists():
        return ""
    return "".join(json.loads(line)["data"] for line in log.read_text().splitlines())


def logger_tab(log: Path, *flags: str) -> str:
    args = ", ".join(f'"{a}"' for a in (sys.executable, LOGGER, log, *flags))
    return f'[[tab]]\nname = "log"\ncommand = [{args}]\nrole = "shell"\n'


def reference(outer: Outer, log: Path, *flags: str) -> str:
    """A plain pane of the same tmux running the same logger: what a program gets without tiki."""
    outer.window("ref")
    outer.keys("ref", f"exec {sys.executable} {LOGGER} {log} {' '.join(flags)}", "Enter")
    outer.wait("ref", "ready")
    return "ref"


def same_bytes(tab_log: Path, ref_log: Path, want: str, what: str) -> None:
    """Once the reference read `want`, the tab must read the same bytes, in the same order."""
    wait_until(lambda: received(ref_log) == want, 10, 0.05, what=f"the reference to read {what}: {received(ref_log)!r}")
    got = wait_until(lambda: len(t := received(tab_log)) >= len(want) and t, 10, 0.05,
                     what=f"the tab to read {what} ({want!r}; so far {received(tab_log)!r})")
    assert got == want, what


def test_keys_typed_right_after_a_paste_reach_the_tab_after_it(tiki_env, tmp_path):
    """A paste and the Enter after it in one read: the Enter (the UI sent it at once) overtook
    the paste (it went round the event loop first), so the shell ran the line before the
    paste and the pasted command sat unrun."""
    tab_log, ref_log = tmp_path / "tab.jsonl", tmp_path / "ref.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log, "--bracketed"), ready="bracketed ready")
        reference(outer, ref_log, "--bracketed")
        outer.tmux("set-buffer", "echo pasted")
        for window in ("ref", "w0"):  # (one tmux command: the paste and the keys in one write)
            outer.tmux("paste-buffer", "-p", "-t", window, ";", "send-keys", "-t", window, "Enter", "x")
        same_bytes(tab_log, ref_log, "\x1b[200~echo pasted\x1b[201~\rx", "a paste, then Enter and x")
    finally:
        outer.close()


KEY_MODE_KEYS = ["M-1", "M-2", "M-.", "Home", "End", "M-F5", "C-M-a", "M-BSpace", "M-Left", "C-Left", "F1", "é"]


def test_key_mode_in_the_agent_panel_sends_keys_as_the_terminal_sent_them(tiki_env, tmp_path):
    """KEY mode ("keys go straight to the active tab") re-encoded Textual's key events: Alt+1
    arrived as ¡ (Textual's macOS Option mapping), Home as CSI H where tmux sends CSI 1 ~,
    Alt+F5 without its ESC, Ctrl+Alt+a without the Alt, and some keys not at all."""
    tab_log, ref_log = tmp_path / "tab.jsonl", tmp_path / "ref.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log), ready="logger ready")
        reference(outer, ref_log)
        outer.keys("w0", "C-\\", "a")
        outer.keys("w0", "BTab")  # CHT -> KEY
        outer.wait("w0", "KEY: keys go straight")
        for key in KEY_MODE_KEYS:  # one read each, as a person types
            for window in ("ref", "w0"):
                outer.keys(window, key)
            wait_until(lambda: len(received(ref_log)) > 0 and received(ref_log) == received(tab_log), 10, 0.05,
                       what=f"{key} in KEY mode: reference {received(ref_log)!r}, tab {received(tab_log)!r}")
        for window in ("ref", "w0"):
            outer.keys(window, "Escape")  # alone in its read: the Escape key
        wait_until(lambda: received(ref_log).endswith("é\x1b") and received(ref_log) == received(tab_log), 10, 0.05,
                   what=f"Escape in KEY mode: tab {received(tab_log)!r}")
        outer.keys("w0", "BTab")  # Shift+Tab still cycles the mode: it is not the tab's
        wait_until(lambda: "KEY: keys go straight" not in outer.screen("w0"), 10, 0.05, what="the mode to change")
        outer.keys("w0", "C-\\", "a", "z")  # back in the tab
        wait_until(lambda: received(tab_log) == received(ref_log) + "z", 10, 0.05,
                   what=f"z in the tab (and no Shift+Tab): {received(tab_log)[-20:]!r}")
    finally:
        outer.close()


def test_a_prefix_textual_cannot_parse_works_in_the_panel_and_dialogs(tiki_env, tmp_path):
    """`prefix = "alt+1"` (ESC 1): while the agent panel or a dialog had the keyboard, the bytes
    went through Textual's parser, which makes ESC 1 a "¡", so the prefix never worked there:
    no way back from the panel; and the prefix twice in the help (prefix alt+a) left it stuck."""
    tab_log = tmp_path / "tab.jsonl"
    config = Path(tiki_env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[keys]\nprefix = "alt+1"\n')
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log), ready="logger ready")
        outer.keys("w0", "M-1", "a")  # to the panel ...
        outer.literal("w0", "hi")
        wait_until(lambda: any("CHT" in line and "hi" in line for line in outer.screen("w0").splitlines()), 10, 0.05,
                   what="typing in the panel")
        outer.keys("w0", "M-1", "a")  # ... and back
        outer.keys("w0", "x")
        wait_until(lambda: received(tab_log) == "x", 10, 0.05, what=f"x in the tab: {received(tab_log)!r}")
        outer.keys("w0", "M-1", "?")
        outer.wait("w0", "show the next tab")
        outer.keys("w0", "M-1", "M-1")  # the prefix twice: the program gets it, the help stays
        wait_until(lambda: received(tab_log) == "x\x1b1", 10, 0.05, what=f"the prefix itself: {received(tab_log)!r}")
        outer.keys("w0", "Escape")
        wait_until(lambda: "show the next tab" not in outer.screen("w0"), 10, 0.05, what="the help to close")
        outer.keys("w0", "y")
        wait_until(lambda: received(tab_log) == "x\x1b1y", 10, 0.05, what=f"y in the tab: {received(tab_log)!r}")
    finally:
        outer.close()


@pytest.mark.parametrize("prefix", ["esc", "alt+[", "alt+O"])
def test_a_prefix_that_starts_the_terminals_sequences_is_refused_saying_why(tiki_env, tmp_path, prefix):
    """`prefix = "alt+["` (ESC [) was taken, and then every arrow key, F5 and Ctrl+Left began
    with the prefix: the program got "5~" for F5 and nothing for Up, with no word why ("esc":
    every key with an ESC; "alt+O": F1..F4)."""
    config = Path(tiki_env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f'[keys]\nprefix = "{prefix}"\n')
    outer = Outer(tiki_env)
    try:
        workspace = tmp_path / "ws.toml"
        workspace.write_text(logger_tab(tmp_path / "tab.jsonl"))
        outer.tiki("w0", "--workspace", str(workspace))
        said = outer.tmux("capture-pane", "-p", "-J", "-t", "w0") if outer.wait("w0", "TIKI-EXIT=1", 15) else ""
        assert f"'{prefix}'" in said and "escape sequence" in said and "ctrl+t" in said, said
    finally:
        outer.close()


def test_a_paste_right_after_the_prefix_is_a_paste(tiki_env, tmp_path):
    """The prefix, then a paste: the paste's start marker was taken for the key after the prefix
    (and dropped), so the text reached the program as typed keys -- a shell ran each line -- and
    the end marker as a stray key. The paste cancels the prefix and is pasted."""
    tab_log, ref_log = tmp_path / "tab.jsonl", tmp_path / "ref.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log, "--bracketed"), ready="bracketed ready")
        reference(outer, ref_log, "--bracketed")
        outer.keys("w0", "C-\\")
        outer.wait("w0", "Ctrl+\\ …")  # the tab bar shows the prefix is pending
        outer.tmux("set-buffer", "line1\nline2")
        for window in ("ref", "w0"):
            outer.tmux("paste-buffer", "-p", "-t", window)
        same_bytes(tab_log, ref_log, "\x1b[200~line1\rline2\x1b[201~", "a paste after the prefix")
        outer.keys("w0", "x")  # and the prefix is over: x is the program's
        wait_until(lambda: received(tab_log).endswith("\x1b[201~x"), 10, 0.05, what=f"x: {received(tab_log)!r}")
    finally:
        outer.close()


@pytest.mark.parametrize("between", ["\x1b[<35;10;5M", "\x1b[O\x1b[I"], ids=["mouse motion", "focus out and in"])
def test_the_mouse_or_a_focus_change_between_the_prefix_and_its_key_keeps_the_prefix(tiki_env, tmp_path, between):
    """The UI asks the outer terminal for every mouse motion and for focus reports: one arriving
    between the prefix and the key after it was taken for that key, and the key (prefix, the
    mouse moves, 2) went to the program -- a "d" into vim."""
    tab_log, other_log = tmp_path / "tab.jsonl", tmp_path / "other.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log) + logger_tab(other_log).replace('"log"', '"other"'),
                       ready="logger ready")
        outer.keys("w0", "C-\\")
        outer.wait("w0", "Ctrl+\\ …")
        outer.tmux("send-keys", "-t", "w0", "-H", *(f"{b:02x}" for b in between.encode()))
        outer.keys("w0", "2")  # (its own write: the report and the key in two reads)
        outer.keys("w0", "x")
        wait_until(lambda: received(other_log) == "x", 10, 0.05, what=f"x in tab 2; tab 1 got {received(tab_log)!r}")
        assert received(tab_log) == ""
    finally:
        outer.close()


def test_a_paste_bigger_than_a_message_reaches_the_program_as_one_paste(tiki_env, tmp_path):
    """A 300 KB paste travels up in several messages; the program must still get it as one
    bracketed paste, as from a plain pane (it got three: ESC[200~ ... ESC[201~ each time, and
    an editor or an AI CLI took them as three pastes)."""
    tab_log, ref_log = tmp_path / "tab.jsonl", tmp_path / "ref.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log, "--bracketed"), ready="bracketed ready")
        reference(outer, ref_log, "--bracketed")
        big = tmp_path / "big.txt"
        big.write_text("".join(f"line {n:06d} of the paste\n" for n in range(12_000)))  # ~300 KB (ASCII: the logger decodes each read)
        outer.tmux("load-buffer", str(big))
        for window in ("ref", "w0"):
            outer.tmux("paste-buffer", "-p", "-t", window)
        want = "\x1b[200~" + big.read_text().replace("\n", "\r") + "\x1b[201~"
        wait_until(lambda: len(received(ref_log)) >= len(want), 30, 0.1, what="the reference to read the paste")
        assert received(ref_log) == want
        got = wait_until(lambda: len(t := received(tab_log)) >= len(want) and t, 30, 0.1, what="the tab to read it")
        assert got.count("\x1b[200~") == 1 and got.count("\x1b[201~") == 1, "pasted in pieces"
        assert got == want
    finally:
        outer.close()


def test_alt_digits_in_the_panel_and_a_dialog_type_nothing(tiki_env, tmp_path):
    """Alt+digits typed into the agent panel's input line or a dialog's field went through
    Textual's parser, which makes ESC 2 a "™" and ESC 1 a "¡" (its mapping for WezTerm's Option
    keys on macOS): a prompt got characters nobody typed. They are Alt keys there as they are
    in the tab (which gets ESC 2), and a field takes no text from them."""
    tab_log = tmp_path / "tab.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(tab_log), ready="logger ready")
        outer.keys("w0", "C-\\", "a")  # to the panel
        outer.literal("w0", "a")
        for key in ("M-2", "M-1", "M-=", "M-0", "M--"):
            outer.keys("w0", key)  # one read each, as a person types
        outer.literal("w0", "b")
        line = wait_until(lambda: next((row for row in outer.screen("w0").splitlines() if "CHT" in row and "b" in row),
                                       None), 10, 0.05, what="typing in the panel")
        assert "ab" in line and not set(line) & set("™¡≠º–"), line
        outer.keys("w0", "C-\\", ",")  # the rename dialog's field
        outer.wait("w0", "Rename")
        outer.keys("w0", "End", "M-3", "M-9")
        outer.literal("w0", "Z")
        wait_until(lambda: "logZ" in outer.screen("w0"), 10, 0.05, what=f"typing in the dialog: {outer.screen('w0')}")
        assert not set(outer.screen("w0")) & set("£ª"), outer.screen("w0")
        assert received(tab_log) == "", "the tab got nothing of it"
    finally:
        outer.close()
