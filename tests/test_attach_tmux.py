"""The real `tiki` binary in real (tmux) terminals, driven with real key encodings: tabs outlive
the UI, any number of UIs attach, and keys reach the program in the tab (issues 13 and 11).
(A UI's faults -- its terminal killed, stalled or stopped, its host not reading: test_attach_faults_tmux.py.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

from conftest import wait_until
from tmux_outer import BASH, Outer, alive, gone_after, logger_tab, pytestmark, read, received, tiki  # noqa: F401 - (pytestmark: its marks)


def view_width(screen: str) -> int:
    """Columns of the terminal view: up to the agent panel's border."""
    return min(line.index("│") for line in screen.splitlines()[1:] if "│" in line)


def test_tabs_outlive_the_ui_and_any_number_of_uis_attach(tiki_env, tmp_path):
    workspace = tmp_path / "ws.toml"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(workspace, BASH + logger_tab(tmp_path / "keys.jsonl"))
        outer.literal("w0", r"printf '\e[31mred\e[0m \e[1;4mbold\e[0m 한국어 \e[44m blue \e[0m ready-%s\n' $((1+1))")
        outer.keys("w0", "Enter")
        outer.wait("w0", "ready-2")
        width = view_width(outer.screen("w0"))
        before = outer.cells("w0", width)[1:]  # the tab's screen (row 0 is the tab bar, badges change)
        outer.keys("w0", "C-\\", "d")  # detach with the prefix
        outer.wait("w0", "TIKI-EXIT=0")
        assert [t["running"] for t in json.loads(tiki(tiki_env, "terminal-list", "--json").stdout)["terminals"]] == \
            [True, True]
        outer.tiki("w0")  # `tiki` again: the same screen, cell for cell (characters and attributes)
        outer.wait("w0", "ready-2")
        wait_until(lambda: outer.cells("w0", width)[1:] == before, 10, 0.2, what="the same cells after attaching again")

        # a long job keeps running while no UI is attached
        outer.literal("w0", "for i in $(seq 1 400); do echo tick-$i; sleep 0.05; done")
        outer.keys("w0", "Enter")
        outer.wait("w0", "tick-3")
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        ticks = lambda: max(map(int, re.findall(r"tick-(\d+)", read(tiki_env, "sh"))), default=0)  # noqa: E731
        seen = ticks()
        wait_until(lambda: ticks() > seen + 10, 20, 0.2, what="the job to go on while detached")
        outer.tiki("w0")
        outer.wait("w0", "? help")
        latest = ticks()
        wait_until(lambda: any(int(n) >= latest for n in re.findall(r"tick-(\d+)", outer.screen("w0"))), 15, 0.2,
                   what="the UI to show the job as it is now")

        # a second UI in another terminal (another size): both show what is typed in either
        outer.window("w1", 110, 34)
        outer.tiki("w1")
        outer.wait("w1", "? help")
        tiki(tiki_env, "terminal-key", "sh", "ctrl+c")
        outer.literal("w0", "echo from-$((0+0))-w0")
        outer.keys("w0", "Enter")
        outer.wait("w1", "from-0-w0")
        outer.literal("w1", "echo from-$((1+0))-w1; stty size")
        outer.keys("w1", "Enter")
        outer.wait("w0", "from-1-w1")
        # the tab takes the size of the UI used last: w1's view (110 columns: below 120 the panel
        # docks at the bottom and the tab gets the width), then w0's (140, beside the panel)
        wide = int(wait_until(lambda: re.search(r"\n(\d+) (\d+)\n", read(tiki_env, "sh", 5)), 10,
                              what="stty size").group(2))
        assert wide == 110
        outer.literal("w0", "stty size")
        outer.keys("w0", "Enter")
        wait_until(lambda: (m := re.findall(r"\n(\d+) (\d+)", read(tiki_env, "sh", 5))) and int(m[-1][1]) < wide,
                   10, what="the tab to take w0's size (beside its panel)")

        narrow = int(re.findall(r"\n(\d+) (\d+)", read(tiki_env, "sh", 5))[-1][1])

        # SIGKILL of one UI, SIGHUP of the other (its terminal closes): the host and tabs run on.
        # w1 is the latest when it is killed: the tab goes back to w0's size, as the one left.
        outer.literal("w1", "stty size")
        outer.keys("w1", "Enter")
        wait_until(lambda: re.findall(r"\n(\d+) (\d+)", read(tiki_env, "sh", 5))[-1][1] == str(wide), 10,
                   what="the tab to take w1's size again")
        # `tiki status` lists both UIs: their terminals, processes and sizes; w1 the latest
        status = json.loads(tiki(tiki_env, "status", "--json").stdout)["host"]
        ttys = {window: outer.tmux("display-message", "-p", "-t", window, "#{pane_tty}").strip() for window in ("w0", "w1")}
        assert sorted((ui["tty"], ui["pid"], ui["size"][0], ui["latest"]) for ui in status["uis"]) == sorted([
            (ttys["w0"], outer.ui_pid("w0"), narrow, False), (ttys["w1"], outer.ui_pid("w1"), wide, True)])
        host_pid = status["pid"]
        subprocess.run(["kill", "-9", str(outer.ui_pid("w1"))])
        outer.wait("w1", "TIKI-EXIT=137")
        tiki(tiki_env, "terminal-send", "sh", "stty size")
        wait_until(lambda: re.findall(r"\n(\d+) (\d+)", read(tiki_env, "sh", 5))[-1][1] == str(narrow), 10,
                   what="the tab to take the size of w0, the UI left")
        outer.tmux("kill-window", "-t", "w0")
        tiki(tiki_env, "terminal-send", "sh", "echo still-$((2+2))")
        wait_until(lambda: "still-4" in read(tiki_env, "sh"), 10, 0.1, what="the tab to run on")
        assert alive(host_pid)

        # a host crash: `tiki` starts a new host, which restores the workspace
        outer.window("w2")
        subprocess.run(["kill", "-9", str(host_pid)])
        outer.tiki("w2", "--workspace", str(workspace), cwd=str(tmp_path))
        screen = outer.wait("w2", "? help")
        assert " 1 sh " in screen and " 2 log " in screen
        new_host = json.loads(tiki(tiki_env, "status", "--json").stdout)["host"]["pid"]
        assert new_host != host_pid

        # `tiki shutdown` leaves no process behind: the host, the tabs' programs, the UI
        tiki(tiki_env, "terminal-send", "sh", "echo shell-pid-$$")
        shell = int(wait_until(lambda: re.search(r"shell-pid-(\d+)", read(tiki_env, "sh")), 10).group(1))
        logger = [int(p) for p in subprocess.run(["pgrep", "-f", str(tmp_path / "keys.jsonl")], capture_output=True,
                                                 text=True).stdout.split()]
        ui = outer.ui_pid("w2")
        assert tiki(tiki_env, "shutdown").returncode == 0
        outer.wait("w2", "TIKI-EXIT=0")
        assert gone_after([new_host, shell, *logger, *([ui] if ui else [])])
        assert tiki(tiki_env, "terminal-list").returncode == 3  # no host
    finally:
        outer.close()


def test_a_ui_whose_host_is_killed_says_so_and_tiki_anywhere_brings_the_same_tabs_back(tiki_env, tmp_path):
    """The host dies under an attached UI (SIGKILL: no goodbye frame). The UI must say that the
    host is gone, not only that a connection broke, and what brings the tabs back; `tiki` run
    next -- without --workspace, in another directory -- serves the workspace the dead host
    served, and says so in the panel."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    workspace = project / "team.toml"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(workspace, BASH + '[[tab]]\nname = "notes"\ncommand = ["bash", "--norc", "--noprofile"]\n')
        host_pid = json.loads(tiki(tiki_env, "status", "--json").stdout)["host"]["pid"]
        os.kill(host_pid, signal.SIGKILL)
        outer.wait("w0", "TIKI-EXIT=1")
        screen = said = outer.tmux("capture-pane", "-p", "-J", "-t", "w0")  # (-J: wrapped lines joined)
        assert f"the host (pid {host_pid}) stopped without shutting down" in said, screen
        assert "`tiki` starts a new one with the same tabs" in said, screen

        outer.tiki("w0", cwd=str(elsewhere))
        screen = outer.wait("w0", "? help")
        assert " 1 sh " in screen and " 2 notes " in screen, screen
        screen = outer.wait("w0", "host: restored")
        # The panel is narrow: its text wraps anywhere (a long path mid-word), so compare it squashed.
        panel = re.sub(r"\s+", "", "".join(line.partition("│")[2] for line in screen.splitlines()))
        for said in (str(workspace), f"(pid {host_pid})", "(killed or crashed)"):
            assert re.sub(r"\s+", "", said) in panel, screen
    finally:
        outer.close()


def test_tiki_with_a_state_directory_it_cannot_use_says_so(tiki_env, tmp_path):
    """`tiki` starts its host in the background with its log in the state directory: when that
    cannot be made, one line names it and the fix (it was a traceback)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    outer = Outer({**tiki_env, "TIKI_STATE_DIR": str(blocker / "state")})
    try:
        outer.tiki("w0")
        screen = outer.wait("w0", "TIKI-EXIT=1")
        assert "Traceback" not in screen
        assert "TIKI_STATE_DIR" in screen and str(blocker / "state") in screen.replace("\n", "")
        assert tiki(tiki_env, "terminal-list").returncode == 3  # no host was left starting
    finally:
        outer.close()


KEYS = {  # tmux key name -> what a terminal sends (xterm), which the program must receive as is
    **{f"M-{n}": f"\x1b{n}" for n in range(1, 10)}, "M-.": "\x1b.",
    "F1": "\x1bOP", "F2": "\x1bOQ", "F3": "\x1bOR", "F4": "\x1bOS", "F5": "\x1b[15~", "F6": "\x1b[17~",
    "F7": "\x1b[18~", "F8": "\x1b[19~", "F9": "\x1b[20~", "F10": "\x1b[21~", "F11": "\x1b[23~", "F12": "\x1b[24~",
    "C-Left": "\x1b[1;5D", "C-Right": "\x1b[1;5C", "C-Up": "\x1b[1;5A", "C-Down": "\x1b[1;5B",
    "S-Up": "\x1b[1;2A", "M-Left": "\x1b[1;3D", "C-Home": "\x1b[1;5H", "IC": "\x1b[2~", "C-a": "\x01", "Escape": "\x1b",
}


def test_keys_reach_the_program_and_the_prefix_commands_work(tiki_env, tmp_path):
    log = tmp_path / "keys.jsonl"
    outer = Outer(tiki_env)
    names = lambda: [t["name"] for t in json.loads(tiki(tiki_env, "terminal-list", "--json").stdout)["terminals"]]  # noqa: E731
    try:
        outer.start_ui(tmp_path / "ws.toml", logger_tab(log) + BASH, ready="logger ready")
        expected = ""
        for key, data in KEYS.items():  # one at a time: each is its own read, as typed by a person
            outer.keys("w0", key)
            expected += data
            wait_until(lambda: received(log) == expected, 10, 0.05, what=f"{key} -> {data!r}; got {received(log)!r}")
        outer.keys("w0", "C-\\", "C-\\")  # the prefix twice: the program gets it
        wait_until(lambda: received(log) == expected + "\x1c", 10, 0.05, what="the prefix itself")

        outer.keys("w0", "C-\\", "n")  # next tab: the shell
        outer.literal("w0", "echo in-$((3*3))-sh")
        outer.keys("w0", "Enter")
        wait_until(lambda: "in-9-sh" in read(tiki_env, "sh"), 10, 0.1, what="typing in the shell tab")
        outer.keys("w0", "C-\\", "p", "k")  # previous tab, then a key for the logger
        wait_until(lambda: received(log).endswith("\x1ck"), 10, 0.05, what="back in the logger")
        outer.keys("w0", "C-\\", "2")
        outer.keys("w0", "C-\\", "c")  # new tab: its dialog takes the name
        outer.wait("w0", "New tab")
        outer.literal("w0", "extra")
        outer.keys("w0", "Enter")
        wait_until(lambda: "extra" in names(), 15, 0.1, what="the new tab")
        outer.wait("w0", " 3 extra ")
        outer.keys("w0", "C-\\", ",")  # rename it
        outer.wait("w0", "Rename tab 'extra'")
        outer.keys("w0", "C-u")  # (Textual runs the Input's ctrl+u binding after keys already typed: let it)
        wait_until(lambda: not any("extra" in line and "▊" in line for line in outer.screen("w0").splitlines()), 10,
                   0.05, what="the name field emptied")
        outer.literal("w0", "renamed")
        outer.keys("w0", "Enter")
        outer.wait("w0", " 3 renamed ")
        assert "renamed" in names()
        outer.keys("w0", "C-\\", "x")  # close it (asks)
        outer.wait("w0", "Close tab 'renamed'")
        outer.keys("w0", "y")
        wait_until(lambda: names() == ["log", "sh"], 15, 0.1, what="the tab closed")
        outer.keys("w0", "C-\\", "?")
        outer.wait("w0", "open a tab: name, command, directory")  # the help, built from the prefix table
        outer.keys("w0", "Escape")  # (then a wait: an Escape and a key in one read would be Alt+key)
        wait_until(lambda: "open a tab: name" not in outer.screen("w0"), 10, 0.05, what="the help to close")
        outer.keys("w0", "C-\\", ":")
        outer.wait("w0", "Search for commands")
        outer.keys("w0", "Escape")
        wait_until(lambda: "Search for commands" not in outer.screen("w0"), 10, 0.05, what="the palette to close")
        outer.keys("w0", "C-\\", "z")  # the panel docks at the bottom
        wait_until(lambda: 'panel = "bottom"' in (Path(tiki_env["TIKI_CONFIG_DIR"]) / "ui.toml").read_text()
                   if (Path(tiki_env["TIKI_CONFIG_DIR"]) / "ui.toml").exists() else False, 10, 0.1, what="panel")
        outer.keys("w0", "C-\\", "1", "C-\\", "r")  # restart the logger
        # (the old output stays above a divider: issue 11)
        wait_until(lambda: re.search(r"restarted [\d:]+ ─+\nlogger ready\s*\Z", read(tiki_env, "log")), 15, 0.1,
                   what=f"a fresh logger under the divider; {read(tiki_env, 'log')!r}")
        wait_until(lambda: "read " not in outer.screen("w0").split("restarted", 1)[-1], 15, 0.1,
                   what="the UI to show the fresh logger")
        outer.keys("w0", "C-\\", "a")  # the agent panel: CHT mode types the line into the tab
        outer.literal("w0", "cht")
        outer.keys("w0", "Enter")
        wait_until(lambda: received(log).endswith("cht\r"), 10, 0.05, what="CHT typing")
        outer.keys("w0", "C-\\", "a", "q")  # back to the tab: q is the logger's
        wait_until(lambda: received(log).endswith("cht\rq"), 10, 0.05, what="keys in the tab again")
        outer.keys("w0", "C-\\", "q")  # stop everything: asks, and the default is Cancel
        outer.wait("w0", "Stop the host and all its tabs?")
        outer.keys("w0", "Enter")
        wait_until(lambda: "Stop the host" not in outer.screen("w0"), 10, 0.1, what="the dialog to close")
        assert names() == ["log", "sh"]
        outer.keys("w0", "C-\\", "q")
        outer.wait("w0", "Stop the host and all its tabs?")
        outer.keys("w0", "y")
        outer.wait("w0", "TIKI-EXIT=0")
        wait_until(lambda: tiki(tiki_env, "terminal-list").returncode == 3, 15, 0.2, what="the host to be gone")
    finally:
        outer.close()
