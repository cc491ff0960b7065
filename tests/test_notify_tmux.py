"""Issue 12's acceptance through a real outer terminal: the real `tiki` binary runs in a tmux
pane; a Claude stand-in in a background tab reaches its permission prompt; the tab bar shows the
waiting badge and the notification sequences reach the outer terminal, and each tab's agent state
as the host says it (`idle`, `working`, `waiting`), in front or behind.

What the outer terminal receives is what the TUI writes to its pane: `tmux pipe-pane` copies
every byte the pane's program outputs to a file, before tmux interprets any of it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TIKI, wait_until
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]
HERE = Path(__file__).parent
BASH = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'
CLAUDE = (f'[[tab]]\nname = "Claude"\n'
          f'command = {json.dumps([sys.executable, str(HERE / "standins" / "claude_standin.py"), "--speed", "0.3"])}\n')


def tiki(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, *args], env=env, capture_output=True, text=True, timeout=60)


def test_a_background_tab_waiting_gets_a_badge_and_an_osc9_on_the_outer_terminal(tiki_env, tmp_path):
    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env)
    try:
        outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
        outer.start_ui(tmp_path / "ws.toml", BASH + CLAUDE)  # sh in front, Claude in the background
        assert tiki(tiki_env, "terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "20000").returncode == 0
        assert b"\x1b]9;" not in received.read_bytes()  # nothing to say yet
        outer.wait("w0", "Claude idle")

        sent = tiki(tiki_env, "terminal-send", "Claude", "make a demo dir")
        assert sent.returncode == 0, sent.stderr
        screen = outer.wait("w0", "! needs you")
        tab_bar = screen.splitlines()[0]
        assert tab_bar.index("Claude") < tab_bar.index("! needs you")  # on Claude's tab
        osc9 = b"\x1b]9;tikitaka: Claude needs you: Do you want to proceed?\x07"
        wait_until(lambda: osc9 in received.read_bytes(), 10, 0.1, what="OSC 9 on the outer terminal")
        data = received.read_bytes()
        assert b"\x1b]777;notify;tikitaka: Claude needs you;Do you want to proceed?\x07" in data
        assert osc9 + b"\x1b]777;" in data  # written as one piece, not cut by a frame

        outer.keys("w0", "C-\\", "2")  # show the tab: the badge is seen
        wait_until(lambda: "! needs you" not in outer.screen("w0").splitlines()[0], 10, 0.1, what="the badge cleared")
        # what the tab still is, in front: waiting (its output is quiet: it was shown as "idle")
        assert "Claude waiting" in outer.wait("w0", "Claude waiting", timeout=5).splitlines()[0]
        outer.keys("w0", "1")  # yes: it works on, then is idle at its input box again
        outer.wait("w0", "Claude working")
        outer.wait("w0", "Claude idle", timeout=20)
    finally:
        outer.close()


def bells(data: bytes) -> int:
    """The BELs in `data` that ring: not the ones that end an OSC string."""
    return re.sub(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)", b"", data).count(b"\x07")


def test_a_programs_bell_rings_the_outer_terminal_from_any_tab_and_badges_one_behind(tiki_env, tmp_path):
    # As in tmux: a program's BEL (readline's beep, a job's `printf '\a'` when it ends) rings
    # the terminal the UI runs in, also from the tab in front; a tab behind gets a badge.
    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env)
    try:
        outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
        outer.start_ui(tmp_path / "ws.toml", BASH + BASH.replace('"sh"', '"bg"'))
        outer.literal("w0", r"printf 'ring\a\a\a'; echo ' rang'")
        outer.keys("w0", "Enter")
        outer.wait("w0", "ring rang")
        wait_until(lambda: bells(received.read_bytes()) >= 1, 10, 0.1, what="the front tab's bell on the outer terminal")
        assert "* bell" not in outer.screen("w0").splitlines()[0]  # you are looking at it: no badge
        before = bells(received.read_bytes())
        assert tiki(tiki_env, "terminal-send", "bg", r"printf '\a'; echo bg-done").returncode == 0
        tab_bar = outer.wait("w0", "* bell").splitlines()[0]
        assert tab_bar.index("bg") < tab_bar.index("* bell")
        wait_until(lambda: bells(received.read_bytes()) > before, 10, 0.1, what="the background tab's bell")
        outer.keys("w0", "C-\\", "2")  # shown: heard
        wait_until(lambda: "* bell" not in outer.screen("w0").splitlines()[0], 10, 0.1, what="the badge cleared")

        # A program's notification is its text, brackets and all: read as markup, `[/]` took
        # the UI down (a MarkupError) and `[abc]` vanished from the toast.
        outer.keys("w0", "C-\\", "1")
        assert tiki(tiki_env, "terminal-send", "bg", r"printf '\e]9;build [abc] done [/]\a'").returncode == 0
        outer.wait("w0", "build [abc] done [/]")
        assert tiki(tiki_env, "status").stdout.count("showing") == 1  # the UI is still attached
    finally:
        outer.close()


def test_a_command_in_a_shell_tab_behind_says_done_once_the_shell_has_the_terminal_again(tiki_env, tmp_path):
    """A build in a tab behind, quiet while it links: the tab is `working` until its shell holds
    the terminal again, then `✓ done` (the shell read idle 1.5 s after the command line's echo,
    so a command that printed nothing more never said it had ended)."""
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + BASH.replace('"sh"', '"bg"'))
        outer.wait("w0", "bg idle")
        sent = time.monotonic()
        assert tiki(tiki_env, "terminal-send", "bg", "sleep 3.5; echo built-$((6*7))").returncode == 0
        outer.wait("w0", "bg working")
        tab_bar = outer.wait("w0", "✓ done", timeout=15).splitlines()[0]
        assert time.monotonic() - sent >= 3.5 and "built-42" in tiki(tiki_env, "terminal-read", "bg").stdout
        assert tab_bar.index("bg") < tab_bar.index("✓ done")
    finally:
        outer.close()


def test_a_waiting_tab_off_the_bar_is_marked_and_a_click_on_the_mark_shows_it(tiki_env, tmp_path):
    """Twelve tabs in an 80-column terminal: Claude is off the bar. Its permission question
    puts "!" beside the count of hidden tabs, and a click there (the SGR bytes a terminal
    sends) shows Claude."""
    shells = "".join(f'[[tab]]\nname = "s{n}"\ncommand = ["bash", "--norc", "--noprofile"]\n' for n in range(1, 12))
    outer = Outer(tiki_env, cols=80, rows=24)
    try:
        screen = outer.start_ui(tmp_path / "ws.toml", shells + CLAUDE)
        assert "Claude" not in screen.splitlines()[0] and "▸" in screen.splitlines()[0]
        assert tiki(tiki_env, "terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "20000").returncode == 0
        assert tiki(tiki_env, "terminal-send", "Claude", "make a demo dir").returncode == 0
        bar = outer.wait("w0", "▸ !").splitlines()[0]
        column = bar.index("▸ !")  # (1-based: on the count's last digit)
        data = f"\x1b[<0;{column};1M\x1b[<0;{column};1m".encode()
        outer.tmux("send-keys", "-t", "w0", "-H", *(f"{b:02x}" for b in data))
        outer.wait("w0", "Do you want to proceed?")
        wait_until(lambda: "Claude" in outer.screen("w0").splitlines()[0], 10, 0.1, what="Claude's tab on the bar")
    finally:
        outer.close()


def test_the_tab_bar_is_drawn_again_only_when_it_changes_and_only_its_row(tiki_env, tmp_path):
    """The host sends the tab list at every state event of any tab; most say what the bar
    already says (a background job printing now and then stays `working`). Each was drawn
    again, and with a layout pass Textual also drew the agent log's scrollbar down the whole
    screen: 1,821 bytes to the terminal each time (bench/outer_bytes-like count, tmux
    pipe-pane), for nothing a user could see."""
    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + BASH.replace('"sh"', '"bg"'))
        outer.wait("w0", "CHT: type into")
        assert tiki(tiki_env, "terminal-send", "bg", "sleep 1; for i in 1 2 3 4 5 6; do sleep 1; echo; done; sleep 30"
                    ).returncode == 0
        outer.wait("w0", "bg working")
        outer.settled("w0")
        outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
        time.sleep(7)  # (six lines printed behind, a state event each)
        outer.tmux("pipe-pane", "-t", "w0")
        assert "bg working" in outer.screen("w0")
        written = received.stat().st_size if received.exists() else 0
        assert written < 1500, written  # (six repaints of the bar and the scrollbar were ~11 KB)
        tiki(tiki_env, "terminal-key", "bg", "ctrl+c")
        outer.wait("w0", "bg ✓ done")  # a change is still drawn
    finally:
        outer.close()


def test_a_toast_coming_and_going_writes_its_own_rows_not_the_screen(tiki_env, tmp_path):
    """Textual hid its toast rack while no toast was up, and showing it again renumbered every
    widget's paint order, which its compositor took as every widget changed: the whole screen
    was written again as a toast came (15,329 bytes at 140x45) and again as it went. Only the
    toast's rows (and the tab bar's badge) change for the user."""
    received = tmp_path / "outer.bytes"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH + BASH.replace('"sh"', '"bg"'))
        outer.wait("w0", "CHT: type into")
        assert tiki(tiki_env, "terminal-send", "bg", "sleep 4; echo built").returncode == 0
        outer.wait("w0", "bg working")
        outer.settled("w0")
        before = outer.screen("w0").splitlines()
        outer.tmux("pipe-pane", "-O", "-t", "w0", f"cat > '{received}'")
        outer.wait("w0", "bg is done", timeout=15)
        wait_until(lambda: "bg is done" not in outer.screen("w0"), 15, 0.2, what="the toast to go")
        outer.settled("w0")
        outer.tmux("pipe-pane", "-t", "w0")
        after = outer.screen("w0").splitlines()
        assert after[1:] == before[1:], "\n".join(after)  # (row 0: the tab bar, with its badge now)
        assert "✓ done" in after[0]
        written = received.stat().st_size if received.exists() else 0
        assert written < 6000, written  # (came and went: 18,404 bytes, the screen written again)
    finally:
        outer.close()
