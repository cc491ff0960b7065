"""The UI's own workflows as a keyboard user drives them in a real terminal (tmux): the new-tab
and rename dialogs, what the UI says when a command it ran was refused, and the command
palette's entries."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import wait_until
from tmux_outer import Outer, panel_at

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]


def tab(name: str) -> str:
    command = json.dumps(["bash", "--norc", "--noprofile", "-c", f"echo I-am-{name}; exec bash --norc --noprofile"])
    return f'[[tab]]\nname = "{name}"\ncommand = {command}\n'


def new_tab_dialog(outer: Outer) -> None:
    """prefix c, and the new-tab dialog's fields shown."""
    outer.keys("w0", "C-\\", "c")
    outer.wait("w0", "New tab")
    wait_until(lambda: "working directory" in outer.screen("w0"), 10, 0.05, what="the dialog's fields")


def rename_to(outer: Outer, new: str) -> None:
    outer.keys("w0", "C-\\", ",")
    outer.wait("w0", "Rename tab")
    # The field holds the current name, selected: typing replaces it, as a user renames. (Not
    # Ctrl+A Ctrl+K first: sent in one burst, Textual runs those bindings once they have bubbled
    # up to the app, which can be after the Input has taken the letters typed behind them -- a
    # loaded CI run ended with an empty field.)
    outer.literal("w0", new)
    outer.wait("w0", f"▊  {new} ")  # (the field, not the tab bar)
    outer.keys("w0", "Enter")


def test_a_refused_rename_says_why_in_the_dialog_and_keeps_the_name_typed(tiki_env, tmp_path):
    """prefix `,`, a name another tab has, Enter: the dialog closed, the tab kept its name, and
    with the agent panel hidden the UI said nothing at all -- the refusal went to the hidden
    panel. The dialog says why now, under the name typed (kept for a fix, as the new-tab dialog
    does), whatever the panel shows."""
    panel_at(tiki_env, "hidden")
    outer = Outer(tiki_env, cols=100, rows=30)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one") + tab("two"), ready="I-am-one")
        rename_to(outer, "two")
        screen = outer.wait("w0", "already exists", timeout=5)
        assert "Rename tab 'one'" in screen and "▊  two " in screen, screen
        outer.keys("w0", "Escape")
        wait_until(lambda: "Rename tab" not in outer.screen("w0"), 10, 0.05, what="the dialog to close")
        assert " 1 one " in outer.screen("w0")
    finally:
        outer.close()


def test_a_note_written_while_the_panel_was_hidden_reads_normally_once_it_shows(tiki_env, tmp_path):
    """A note the panel got while hidden (here: a bot-chat message from the tab) was laid out
    for a panel 0 columns wide: once prefix `z` showed the panel again, it read one character
    per row."""
    outer = Outer(tiki_env, cols=100, rows=30)  # (below 120 columns the panel docks at the bottom, full width)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one") + tab("two"), ready="I-am-one")
        outer.wait("w0", "CHT")
        outer.keys("w0", "C-\\", "z", "C-\\", "z")  # right -> bottom -> hidden, as a user goes
        wait_until(lambda: "CHT" not in outer.screen("w0"), 10, 0.05, what="the panel to hide")
        outer.literal("w0", "tiki bot-chat a note that came while hidden; clear")
        outer.keys("w0", "Enter")
        wait_until(lambda: "bot-chat" not in outer.screen("w0"), 10, 0.05, what="the message to go")
        outer.keys("w0", "C-\\", "z")  # hidden -> right (docked at the bottom here)
        outer.wait("w0", "CHT")
        outer.wait("w0", "a note that came while hidden", timeout=5)
    finally:
        outer.close()


def test_new_tab_dialog_shows_why_a_long_name_is_refused(tiki_env, tmp_path):
    """A 200-character name: the dialog's error line is cut at the dialog's edge, so the reason
    ("use 1-40 letters, digits, ...") is never seen -- only "invalid tab name 'xxxxxx..."."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one"), ready="I-am-one")
        new_tab_dialog(outer)
        outer.literal("w0", "x" * 200)
        outer.keys("w0", "Enter")
        screen = outer.wait("w0", "invalid tab name")
        screen = outer.settled("w0")
        assert "1-40" in screen, f"the reason is cut off:\n{screen}"
    finally:
        outer.close()


def test_palette_keys_entry_does_not_advertise_bindings_tiki_does_not_have(tiki_env, tmp_path):
    """The command palette's "Keys" entry (Textual's own) opened a key panel that lists
    `^c Copy selected text` and `palette Open the command palette`: ctrl+c goes to the program,
    and the palette is prefix `:`. It said nothing of tikitaka's real keys, which `Help` shows:
    the palette offers that, not Textual's panel."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one"), ready="I-am-one")
        outer.keys("w0", "C-\\", ":")
        outer.wait("w0", "Search for commands")
        outer.literal("w0", "help")
        outer.wait("w0", "this help")  # (the palette searches: our Help is found)
        outer.keys("w0", "Escape")  # (the palette's icon, not its placeholder: "help" hides that)
        wait_until(lambda: "🔎" not in outer.screen("w0"), 10, 0.05, what="the palette to close")
        outer.keys("w0", "C-\\", ":")
        outer.wait("w0", "Search for commands")
        outer.literal("w0", "Keys")
        outer.wait("w0", "🔎 Keys")
        screen = outer.settled("w0")
        assert "summary of available keys" not in screen, screen
        outer.keys("w0", "Escape")
        wait_until(lambda: "🔎" not in outer.screen("w0"), 10, 0.05, what="the palette to close")
    finally:
        outer.close()


def test_closing_a_tab_whose_program_exited_does_not_ask_to_end_it(tiki_env, tmp_path):
    """prefix `x` on a tab whose program had exited asked "Close tab 'x' and end its program?"."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        done = json.dumps(["bash", "--norc", "--noprofile", "-c", "echo I-am-done"])
        outer.start_ui(tmp_path / "ws.toml", f'[[tab]]\nname = "done"\ncommand = {done}\n', ready="exited")
        outer.keys("w0", "C-\\", "x")
        screen = outer.wait("w0", "Close tab 'done'")
        assert "end its program" not in screen and "has exited" in screen, screen
        outer.keys("w0", "Escape")
    finally:
        outer.close()


def test_keys_typed_ahead_after_tab_go_to_the_next_field(tiki_env, tmp_path):
    """In the new-tab dialog, `fast<Tab>sleep 99` arriving in one read (type-ahead, a keyboard
    macro) put everything in the name field: the Tab moved the focus only after the keys behind
    it had been handed to the name field."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one"), ready="I-am-one")
        new_tab_dialog(outer)
        outer.keys("w0", "f", "a", "s", "t", "Tab", "s", "l", "e", "e", "p", "Space", "9", "9")
        outer.wait("w0", "99")
        screen = outer.settled("w0")
        assert "fastsleep" not in screen, f"the command went into the name field:\n{screen}"
        rows = [row for row in screen.splitlines() if "▊  fast " in row or "▊  sleep 99 " in row]
        assert len(rows) == 2, f"name and command should be two fields:\n{screen}"
    finally:
        outer.close()



def test_editing_keys_typed_ahead_into_a_field_apply_where_they_were_typed(tiki_env, tmp_path):
    """`ab`, Backspace, `c` arriving in one read (type-ahead while the UI is busy, a fast
    typist over a slow link) gave `ab` in the rename field: Textual runs an Input's editing
    keys (Backspace, Ctrl+U, Home ...) once they have bubbled up to the app, after the letters
    read behind them were typed -- the Backspace took the `c`. In the agent panel's line,
    Ctrl+U behind `xyz` and before `hi` took the `hi` too."""
    outer = Outer(tiki_env, cols=100, rows=30)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one") + tab("two"), ready="I-am-one")
        outer.keys("w0", "C-\\", ",")
        outer.wait("w0", "Rename tab")
        outer.keys("w0", "a", "b", "BSpace", "c", "Home", "x")  # one tmux command: one read
        outer.wait("w0", "▊  xac ", timeout=10)
        outer.keys("w0", "Escape")
        wait_until(lambda: "Rename tab" not in outer.screen("w0"), 10, 0.05, what="the dialog to close")
        outer.keys("w0", "C-\\", "a")
        outer.wait("w0", "CHT: type into the active tab")
        outer.keys("w0", "x", "y", "z", "C-u", "h", "i", "Left", "C-k", "!")
        outer.wait("w0", "CHT ▊  h! ", timeout=10)
    finally:
        outer.close()


def test_a_search_typed_ahead_after_ctrl_u_in_the_palette_is_kept(tiki_env, tmp_path):
    """The command palette's field is Textual's own: `xyz`, Ctrl+U, `help` in one read left it
    empty (Ctrl+U ran after the letters behind it). It is a TextField now, as the others are."""
    outer = Outer(tiki_env, cols=140, rows=45)
    try:
        outer.start_ui(tmp_path / "ws.toml", tab("one"), ready="I-am-one")
        outer.keys("w0", "C-\\", ":")
        outer.wait("w0", "Search for commands")
        outer.keys("w0", "x", "y", "z", "C-u", "h", "e", "l", "p")  # one tmux command: one read
        outer.wait("w0", "🔎 help", timeout=10)
        outer.wait("w0", "this help", timeout=10)  # (and the palette searched for it)
        outer.keys("w0", "Escape")
    finally:
        outer.close()
