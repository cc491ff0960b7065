"""The prefix key, ctrl+\\, is the terminal's QUIT character: in the shell's cooked mode the
kernel turns it into SIGQUIT. Typed while `tiki` starts (before the UI has the terminal in raw
mode: ~0.4-0.6 s here) it killed the UI -- "Quit", exit 131, a core file where they are kept;
and a SIGQUIT sent to a running UI left the outer terminal on the alternate screen with mouse
reporting on. The real `tiki` in tmux, keys as the terminal sends them."""

from __future__ import annotations

import re
import subprocess

from conftest import host_log, wait_until
from tmux_outer import BASH, Outer, logger_tab, pytestmark, received, tiki  # noqa: F401

TWO = BASH + '[[tab]]\nname = "two"\ncommand = ["bash", "--norc", "--noprofile", "-c", "echo I-am-two; exec bash --norc --noprofile"]\n'


def starting(outer: Outer, window: str) -> None:
    """Until `tiki` holds the window's terminal for its start -- its QUIT key off, signals still
    on (`type_ahead`); once the UI is up, its raw mode has them off too. A user's keys from then
    on are the UI's; before (Python's own start, ~60 ms) they are still the shell's."""
    tty = outer.tmux("display-message", "-p", "-t", window, "#{pane_tty}").strip()

    def held() -> bool:
        settings = subprocess.run(["stty", "-F", tty, "-a"], capture_output=True, text=True).stdout
        return "quit = <undef>" in settings and re.search(r"(?<![-\w])isig\b", settings) is not None
    wait_until(held, 10, 0.005, what="tiki to hold the terminal while it starts")


def modes(outer: Outer, window: str) -> str:
    return outer.tmux("display-message", "-p", "-t", window, "#{alternate_on} #{mouse_any_flag} #{keypad_flag}").strip()


def test_the_prefix_typed_while_tiki_starts_is_the_prefix(tiki_env, tmp_path):
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", TWO)  # (a host runs: the next `tiki` attaches to it)
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        outer.clear("w0")
        before = modes(outer, "w0")
        outer.tiki("w0")
        starting(outer, "w0")  # (the UI takes the terminal in raw mode ~0.4 s after Enter)
        outer.keys("w0", "C-\\", "2")
        screen = outer.wait("w0", "I-am-two")  # the prefix command ran once the UI was up
        assert "TIKI-EXIT" not in screen and "Quit" not in screen, screen
        outer.keys("w0", "C-\\", "d")
        screen = outer.wait("w0", "TIKI-EXIT=0")  # (not 131: "Quit")
        assert "^\\" not in screen, screen  # (nor echoed on the shell's screen)
        assert modes(outer, "w0") == before
        # ... and the terminal is the shell's again as it was: ctrl+\ is its QUIT key
        outer.keys("w0", "clear; sleep 30 && echo slept", "Enter")
        wait_until(lambda: outer.tmux("display-message", "-p", "-t", "w0", "#{pane_current_command}").strip() == "sleep",
                   10, 0.02, what="sleep to run")
        outer.keys("w0", "C-\\")
        screen = outer.wait("w0", "Quit")
        assert "slept" not in screen
    finally:
        outer.close()


def test_sigquit_detaches_the_ui_and_gives_the_terminal_back(tiki_env, tmp_path):
    outer = Outer(tiki_env)
    try:
        before = modes(outer, "w0")
        outer.start_ui(tmp_path / "ws.toml", BASH)
        assert modes(outer, "w0") != before  # (the UI's modes: the alternate screen, the mouse)
        subprocess.run(["kill", "-QUIT", str(outer.ui_pid("w0"))], check=True)
        screen = outer.wait("w0", "TIKI-EXIT=0")  # (not 131: "Quit")
        assert "detached" in screen, screen
        assert modes(outer, "w0") == before
    finally:
        outer.close()


def test_keys_typed_while_tiki_starts_reach_the_tab_as_typed(tiki_env, tmp_path):
    """Type-ahead waits in the terminal and reaches the program as the terminal sent it: Enter
    as CR (the shell's cooked mode made it LF, which Claude Code takes for a new line in its
    input box, not for sending it), ^U not eaten by the kernel's line editing."""
    log = tmp_path / "keys.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(log), ready="logger ready")
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        outer.tiki("w0")
        starting(outer, "w0")
        outer.literal("w0", "ahead")
        outer.keys("w0", "C-u", "Enter")
        wait_until(lambda: "ahead" in received(log), 15, 0.05, what="the type-ahead in the tab")
        assert received(log).endswith("ahead\x15\r"), repr(received(log))
    finally:
        outer.close()


def test_ctrl_c_while_tiki_waits_for_its_host_ends_it_with_a_sentence(tiki_env, tmp_path):
    """A start that hangs (here: another host holds the turn to start on this socket) is
    stopped with ctrl+c, which stays the terminal's interrupt while the UI starts: it ended in
    a KeyboardInterrupt traceback."""
    import fcntl
    import os

    lock = os.open(tiki_env["TIKI_SOCKET"] + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    outer = Outer(tiki_env)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (as a host starting on the socket holds it)
        (tmp_path / "ws.toml").write_text(BASH)
        outer.tiki("w0", "--workspace", str(tmp_path / "ws.toml"))
        # (the UI started a host in the background, which waits its turn; the UI waits for it)
        wait_until(lambda: host_log(tiki_env).exists() and "started in the background" in host_log(tiki_env).read_text(),
                   15, 0.05, what="the background host to be started")
        outer.keys("w0", "C-c")
        screen = outer.wait("w0", "TIKI-EXIT=130")
        assert "tiki: interrupted before the UI was up" in screen.replace("\n", "") and "Traceback" not in screen, screen
        os.close(lock)  # the turn is free: the host goes on, as the sentence says
        lock = -1
        wait_until(lambda: tiki(tiki_env, "terminal-list").returncode == 0, 30, 0.1, what="the host to come up")
        assert tiki(tiki_env, "shutdown").returncode == 0
    finally:
        if lock >= 0:
            os.close(lock)
        outer.close()
