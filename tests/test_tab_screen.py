"""A tab's screen through the real `tiki serve` and CLI (issue 11): the cell-by-cell view with
styles and modes, DECCOLM from a real program, an exited tab keeping its last screen, and a
restart keeping the old output under a divider."""

from __future__ import annotations

import json
import re

from conftest import BASH_TAB, wait_until


def cells(host, name: str) -> dict:
    result = host.run("terminal-read", name, "--cells")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def row_text(grid: dict, row: int) -> str:
    return "".join(char for char, _ in grid["cells"][row]).rstrip()


def test_cells_carry_characters_styles_wide_halves_cursor_and_modes(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", r"clear; printf '\e[?1002h\e[?1006h\e[1;31mred\e[0m 한e\xcc\x81!'; read")
    grid = wait_until(lambda: (g := cells(host, "sh")) and "red" in row_text(g, 0) and g, what="the printf")
    row = grid["cells"][0]
    assert [c for c, _ in row[:9]] == ["r", "e", "d", " ", "한", "", "e\u0301", "!", " "]
    red = grid["styles"][row[0][1]]
    assert red["fg"] == 1 and red["bold"] and grid["styles"][row[3][1]]["fg"] is None
    assert grid["cursor"] == {"row": 0, "col": 8, "visible": True}
    assert grid["modes"]["mouse"] == 1002 and grid["modes"]["mouse_encoding"] == "sgr"
    assert len(grid["cells"]) == grid["rows"] and all(len(r) == grid["cols"] for r in grid["cells"])
    host.run("terminal-key", "sh", "enter")


def test_deccolm_from_a_program_clears_the_screen(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "for i in 1 2 3; do echo stale-$i; done")
    host.wait_text("sh", "stale-3")
    host.run("terminal-send", "sh", r"printf '\e[?3hafter-dec''colm'; read")
    text = host.wait_text("sh", "after-deccolm")
    assert "stale" not in text and text.startswith("after-deccolm")  # cleared, and written from the top
    host.run("terminal-key", "sh", "enter")


def test_an_exited_tab_keeps_its_last_screen(serve):
    host = serve('[[tab]]\nname = "once"\ncommand = ["bash", "-c", "echo last words; exit 3"]\n')
    wait_until(lambda: not host.json("terminal-list")["terminals"][0]["running"], what="the exit")
    assert host.json("terminal-list")["terminals"][0]["exit_code"] == 3
    assert "last words" in host.read("once")


def test_restart_keeps_the_old_output_under_a_divider(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo before-restart-$((40+2))")
    host.wait_text("sh", "before-restart-42")
    assert host.run("terminal-restart", "sh").returncode == 0
    host.run("terminal-send", "sh", "echo after-restart")
    text = host.wait_text("sh", "after-restart\n")
    lines = text.splitlines()
    divider = next(i for i, line in enumerate(lines) if "restarted" in line)
    assert re.fullmatch(r"── restarted \d\d:\d\d:\d\d ─+", lines[divider])
    assert any("before-restart-42" in line for line in lines[:divider])
    assert any(line == "after-restart" for line in lines[divider:])


def test_restart_of_a_full_screen_program_leaves_its_modes_behind(serve, tmp_path):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", r"echo on-primary; printf '\e[?1049h\e[?1000h\e[?2004h\e[?1h\e[2Jin-al''t'; sleep 300")
    wait_until(lambda: (g := cells(host, "sh")) and g["modes"]["alt_screen"] and g["modes"]["mouse"] == 1000,
               what="the alternate screen")
    host.run("terminal-restart", "sh")
    host.run("terminal-send", "sh", "echo fresh")
    host.wait_text("sh", "fresh\n")
    modes = cells(host, "sh")["modes"]
    del modes["bracketed_paste"]  # bash's readline turns it on again at its prompt
    assert modes == {"mouse": 0, "mouse_encoding": "x10", "focus_events": False, "app_cursor_keys": False,
                     "alt_screen": False}
    text = host.read("sh")
    assert "on-primary" in text and "in-alt" not in text
