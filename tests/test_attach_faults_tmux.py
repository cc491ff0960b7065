"""The real `tiki` UI in real (tmux) terminals when something goes wrong around it (issue 13): its
terminal killed, closed or stalled mid-flood, the UI stopped and continued (job control), its
host no longer taking input. The UI leaves or holds on, saying why; the tabs run on."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import wait_until
from term_helpers import rss_mb
from tmux_outer import BASH, Outer, alive, gone_after, logger_tab, pytestmark, read, received, tiki  # noqa: F401 - (pytestmark: its marks)


def output_stuck(pid: int) -> bool:
    """Whether `pid`'s output is stuck behind a terminal that reads nothing: a thread sleeps in
    a write to the terminal, and the main thread (the event loop; idle, it waits in epoll)
    sleeps on a lock -- the full queue of frames to write -- for half a second on end."""
    def writing() -> bool:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                if (task / "wchan").read_text() in ("n_tty_write", "wait_woken", "tty_write_lock"):
                    return True
            except OSError:
                pass
        return False

    for _ in range(10):
        if not writing() or "futex" not in Path(f"/proc/{pid}/wchan").read_text():
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("how", ["kill the terminal", "close the terminal", "kill a stalled terminal",
                                 "kill a terminal that sends no SIGHUP"])
def test_a_ui_whose_terminal_dies_mid_flood_exits_and_the_tabs_run_on(tiki_env, tmp_path, how):
    """The terminal a UI draws on goes away while frames are flowing (the terminal emulator is
    killed, quits and closes its windows, or first stops reading -- a frozen SSH link, a
    suspended emulator -- and is then killed): the UI must not outlive it. (Seen: the UI's
    writer thread died of the dead terminal's EIO, its queue filled, and the app blocked for
    good putting the next frame there, so even the SIGHUP handler never ran.) A UI outside the
    terminal's session (`setsid`) gets no SIGHUP at all: the terminal's end, read, must do."""
    outer = Outer(tiki_env)
    host_pid = None
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH, via="setsid --wait" if "no SIGHUP" in how else "")
        outer.literal("w0", "while :; do echo flood-$RANDOM; done")
        outer.keys("w0", "Enter")
        outer.wait("w0", "flood-")
        ui = outer.ui_pid("w0")
        assert ui is not None
        host_pid = json.loads(tiki(tiki_env, "status", "--json").stdout)["host"]["pid"]
        server = int(outer.tmux("display-message", "-p", "#{pid}").strip())
        if how == "kill a stalled terminal":
            os.kill(server, signal.SIGSTOP)
            wait_until(lambda: output_stuck(ui), 15, 0.1, what="the UI's output to be stuck")
        if how != "close the terminal":
            os.kill(server, signal.SIGKILL)  # the PTY's master end closes at once
        else:  # the terminal emulator closes its windows as it quits
            outer.tmux("kill-server")
        assert gone_after([ui], 15)
        assert alive(host_pid)
        tiki(tiki_env, "terminal-key", "sh", "ctrl+c")
        tiki(tiki_env, "terminal-send", "sh", "echo after-$((3+3))")
        wait_until(lambda: "after-6" in read(tiki_env, "sh"), 10, 0.1, what="the tab to run on")
    finally:
        outer.close()


def test_a_ui_behind_a_stalled_terminal_holds_one_screen_and_shows_now_when_it_moves(tiki_env, tmp_path):
    """The terminal stops reading for a while during a flood (a frozen SSH link, a laptop
    asleep, the emulator stopped), then reads again. Meanwhile the UI keeps no more than a
    screenful of frames to draw (it read every frame the host sent and queued them all: its
    memory grew ~1 MB a second), and once the terminal moves it shows the tab as it is now
    (it replayed every frame it had missed: 0.5 s after a 30 s stall the screen showed output
    20 s old)."""
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.literal("w0", 'while :; do echo "flood $EPOCHREALTIME"; done')
        outer.keys("w0", "Enter")
        outer.wait("w0", "flood ")
        ui = outer.ui_pid("w0")
        assert ui is not None
        server = int(outer.tmux("display-message", "-p", "#{pid}").strip())
        os.kill(server, signal.SIGSTOP)
        try:
            wait_until(lambda: output_stuck(ui), 15, 0.1, what="the UI's output to be stuck")
            before = rss_mb(ui)
            time.sleep(6)  # (the old queue grew ~6 MB in that time)
            grown = rss_mb(ui) - before
        finally:
            os.kill(server, signal.SIGCONT)
        resumed = time.time()
        time.sleep(0.3)
        stamps = [float(found) for found in re.findall(r"flood (\d+\.\d+)", outer.screen("w0"))]
        assert stamps and resumed - max(stamps) < 2, f"the screen shows output {resumed - max(stamps):.1f} s old"
        assert grown < 3, f"the UI grew {grown:.1f} MB behind a stalled terminal"
    finally:
        outer.close()


def test_a_ui_stopped_and_continued_draws_its_screen_again_and_a_stray_sigcont_sets_nothing_up(
        tiki_env, tmp_path):
    """Job control on the UI: SIGTSTP, then `fg`, gives the terminal back to the UI -- the tab's
    screen is drawn again and keys reach the tab (the input thread once found its wake-up pipe
    closed by the stop and died; the view stayed blank). And Textual sets the terminal up again
    on every SIGCONT, starting a second thread reading the terminal and a second writer: only a
    resume after the UI's own stop may do that (the kernel sends SIGCONT with a hangup's SIGHUP,
    and anyone can send one)."""
    log = tmp_path / "keys.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(log), ready="logger ready")
        ui = outer.ui_pid("w0")
        assert ui is not None
        threads = len(os.listdir(f"/proc/{ui}/task"))
        os.kill(ui, signal.SIGCONT)
        sent = "".join(chr(ord("a") + i % 26) for i in range(60))
        for ch in sent:  # one read each
            outer.literal("w0", ch)
        wait_until(lambda: received(log) == sent, 10, 0.1, what="every key once, in order")
        assert len(os.listdir(f"/proc/{ui}/task")) == threads

        # The tab bar says idle once the echoes have stopped: the screen to compare after `fg`
        # is then the final one (the echo was taken mid-way, and the bar said "working", once).
        wait_until(lambda: outer.screen("w0").startswith(" 1 log idle"), 10, 0.1, what="the echo, ended")
        before = outer.screen("w0")
        # A screen full of the logger's lines, for `fg` to draw again (under load two keys may
        # come in one read: `read 2`).
        assert len(re.findall(r"^read \d+ ", before, re.M)) >= 20
        os.kill(ui, signal.SIGTSTP)
        outer.wait("w0", "TIKI-EXIT=147")  # stopped (128 + SIGSTOP); the shell has the terminal
        outer.clear("w0")
        outer.keys("w0", "fg", "Enter")
        outer.wait_screen("w0", before, "the same screen after fg")
        outer.literal("w0", "back")
        wait_until(lambda: received(log) == sent + "back", 10, 0.1, what="keys after fg")
        assert alive(ui)
    finally:
        outer.close()


def test_a_ui_whose_host_stops_taking_input_leaves_with_the_reason_and_the_tabs_run_on(tiki_env, tmp_path):
    """A stopped (or hung) host reads nothing: a big paste used to block the UI for good, in
    the middle of sending it -- no detach, no keys, no way out but kill. The UI gives up after
    SEND_TIMEOUT s and says why; the host, continued, has the tab as it was."""
    outer = Outer(tiki_env)
    host_pid = None
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.literal("w0", "echo shell-pid-$$; cat > /dev/null")  # what is pasted goes somewhere quick
        outer.keys("w0", "Enter")
        shell = wait_until(lambda: re.search(r"shell-pid-(\d+)", read(tiki_env, "sh")), 10, 0.1).group(1)
        wait_until(lambda: subprocess.run(["pgrep", "-P", shell, "-x", "cat"], capture_output=True).returncode == 0,
                   10, 0.1, what="cat in the tab")
        ui = outer.ui_pid("w0")
        host_pid = json.loads(tiki(tiki_env, "status", "--json").stdout)["host"]["pid"]
        os.kill(host_pid, signal.SIGSTOP)
        big = tmp_path / "big.txt"
        big.write_text(("x" * 99 + "\n") * 20_000)  # 2 MB: far more than a socket's buffer
        outer.tmux("load-buffer", str(big))
        outer.tmux("paste-buffer", "-p", "-t", "w0")  # as the terminal pastes (bracketed)
        outer.wait("w0", "the host took no input for 10 s", timeout=40)
        assert gone_after([ui], 5)
        os.kill(host_pid, signal.SIGCONT)
        tiki(tiki_env, "terminal-key", "sh", "ctrl+c")
        tiki(tiki_env, "terminal-send", "sh", "echo alive-$((4+4))")
        wait_until(lambda: "alive-8" in read(tiki_env, "sh"), 15, 0.1, what="the tab to run on")
    finally:
        if host_pid is not None and alive(host_pid):
            os.kill(host_pid, signal.SIGCONT)
        outer.close()
