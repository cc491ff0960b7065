"""The mouse in the real `tiki` binary under a real (tmux) terminal (issue 11): raw SGR reports,
as a terminal sends them (`tmux send-keys -H`), reach a program that asked for the mouse,
relative to the tab and in the encoding it asked for; the wheel becomes arrow keys on the
alternate screen; a click on the tab bar switches tabs; a drag in a shell selects and copies
(OSC 52 to the outer terminal, which tmux keeps as a buffer, and prefix+] pastes it); a
program's own OSC 52 reaches the outer terminal; prefix+[ reads history with a search."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from conftest import wait_until
from tmux_outer import BASH, HERE, Outer, pytestmark, read, received, tiki  # noqa: F401


def logger(name: str, log: Path, flag: str) -> str:
    return (f'[[tab]]\nname = "{name}"\ncommand = ["{sys.executable}", "{HERE / "key_logger.py"}", "{log}", "{flag}"]\n'
            'role = "shell"\n')


def sgr(outer: Outer, window: str, code: int, col: int, row: int, release: bool = False) -> None:
    """What a terminal sends for a mouse event at 1-based (col, row) of the whole window."""
    data = f"\x1b[<{code};{col};{row}{'m' if release else 'M'}".encode()
    outer.tmux("send-keys", "-t", window, "-H", *(f"{b:02x}" for b in data))


def has_line(screen: str, text: str) -> bool:
    """A row of the terminal view starts with `text` (the agent panel may follow on its right)."""
    return any(re.match(re.escape(text) + r"(\s|$)", line) for line in screen.splitlines())


def tab_label_column(screen: str, label: str) -> int:
    return screen.splitlines()[0].index(label) + 2  # 1-based, inside the label


def test_mouse_reaches_programs_that_ask_and_clicks_switch_tabs(tiki_env, tmp_path):
    mouse_log, alt_log = tmp_path / "mouse.jsonl", tmp_path / "alt.jsonl"
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", logger("mouse", mouse_log, "--mouse") + logger("alt", alt_log, "--alt") + BASH,
                       ready="mouse ready")
        # The tab's first row is the window's second (the tab bar is above it).
        sgr(outer, "w0", 0, 11, 6)
        sgr(outer, "w0", 32, 13, 7)  # a drag with the left button held (1002 asked for it)
        sgr(outer, "w0", 0, 13, 7, release=True)
        sgr(outer, "w0", 64, 3, 4)  # the wheel
        want = "\x1b[<0;11;5M\x1b[<32;13;6M\x1b[<0;13;6m\x1b[<64;3;3M"
        wait_until(lambda: received(mouse_log) == want, 10, 0.05, what=f"mouse reports; got {received(mouse_log)!r}")

        screen = outer.screen("w0")
        sgr(outer, "w0", 0, tab_label_column(screen, " 2 alt "), 1)  # a click on the tab bar
        sgr(outer, "w0", 0, tab_label_column(screen, " 2 alt "), 1, release=True)
        outer.wait("w0", "alt ready")
        sgr(outer, "w0", 64, 5, 5)  # the wheel on the alternate screen, nobody asked: arrow keys
        wait_until(lambda: received(alt_log) == "\x1b[A" * 3, 10, 0.05, what=f"arrows; got {received(alt_log)!r}")
        assert received(mouse_log) == want  # (the other tab got nothing more)
    finally:
        outer.close()


def test_a_drag_copies_and_paste_and_program_clipboard_and_scrollback_mode(tiki_env, tmp_path):
    outer = Outer(tiki_env)
    outer.tmux("set-option", "-s", "set-clipboard", "on")  # the outer terminal keeps what OSC 52 sets
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH)
        wait_until(lambda: "$" in read(tiki_env, "sh") or "#" in read(tiki_env, "sh"), 15, 0.1, what="a prompt")
        outer.literal("w0", "clear; echo copy-$((6*7))-me")
        outer.keys("w0", "Enter")
        screen = wait_until(lambda: has_line(s := outer.screen("w0"), "copy-42-me") and s, 10, 0.1, what="the echo")
        row = next(i for i, line in enumerate(screen.splitlines()) if line.startswith("copy-42-me"))
        sgr(outer, "w0", 0, 1, row + 1)  # drag over "copy-42-me" in a shell: a selection
        sgr(outer, "w0", 32, 6, row + 1)
        sgr(outer, "w0", 32, 10, row + 1)
        sgr(outer, "w0", 0, 10, row + 1, release=True)
        wait_until(lambda: outer.tmux("show-buffer").strip() == "copy-42-me", 10, 0.1,
                   what=f"the copy in the outer terminal; buffer {outer.tmux('show-buffer')!r}; screen {outer.screen('w0')}")
        outer.literal("w0", "echo pasted:")
        outer.keys("w0", "C-\\", "]")  # the copied text, pasted into the tab
        outer.keys("w0", "Enter")
        wait_until(lambda: "pasted:copy-42-me" in read(tiki_env, "sh"), 10, 0.1, what="prefix ] paste")

        outer.literal("w0", "printf '\\033]52;c;%s\\a' $(printf from-the-program | base64)")
        outer.keys("w0", "Enter")
        wait_until(lambda: outer.tmux("show-buffer").strip() == "from-the-program", 10, 0.1,
                   what=f"the program's OSC 52 outside; buffer {outer.tmux('show-buffer')!r}")

        outer.literal("w0", "seq 1 3000")
        outer.keys("w0", "Enter")
        wait_until(lambda: has_line(outer.screen("w0"), "3000"), 10, 0.1, what="seq")
        outer.keys("w0", "C-\\", "[")  # scrollback mode: the position shows at the top right
        wait_until(lambda: re.search(r"\[0/\d{4}\]", outer.screen("w0")), 10, 0.1, what=f"the indicator; screen {outer.screen('w0')[:1500]}")
        outer.keys("w0", "?")  # search backward: 2777 first, then n: 1777 (N: 2777 again)
        outer.literal("w0", "777")
        outer.keys("w0", "Enter")
        wait_until(lambda: has_line(s := outer.screen("w0"), "2777") and not has_line(s, "2999")
                   and re.search(r"\[\d+/\d{4}\]", s), 10, 0.1, what=f"the view at the match; {outer.screen('w0')}")
        outer.keys("w0", "n")
        wait_until(lambda: has_line(s := outer.screen("w0"), "1777") and not has_line(s, "2777"), 10, 0.1, what="n")
        outer.keys("w0", "N")
        wait_until(lambda: has_line(outer.screen("w0"), "2777"), 10, 0.1, what="N")
        outer.keys("w0", "q")
        wait_until(lambda: has_line(s := outer.screen("w0"), "2999") and not re.search(r"\[\d+/\d{4}\]", s),
                   10, 0.1, what="the live screen again")
    finally:
        outer.close()


def test_vim_with_mouse_on_takes_a_click_at_80x24(tiki_env, tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("".join(f"line{n:02d} abcdef\n" for n in range(1, 11)))
    outer = Outer(tiki_env, cols=80, rows=24)
    try:
        vim = f'[[tab]]\nname = "vim"\ncommand = ["vim", "-u", "NONE", "-N", "-c", "set mouse=a", "{text}"]\n'
        outer.start_ui(tmp_path / "ws.toml", vim, ready="line10 abcdef")
        screen = outer.screen("w0")
        row = next(i for i, line in enumerate(screen.splitlines()) if line.startswith("line05"))
        sgr(outer, "w0", 0, 10, row + 1)  # a click on "c" of line05 (column 10, 1-based)
        sgr(outer, "w0", 0, 10, row + 1, release=True)
        cursor = lambda: json.loads(tiki(tiki_env, "terminal-read", "vim", "--cells").stdout)["cursor"]  # noqa: E731
        wait_until(lambda: (cursor()["row"], cursor()["col"]) == (row - 1, 9), 10, 0.1,
                   what=f"vim's cursor where the click was; {cursor()}")  # (the tab starts on the second row)
        outer.literal("w0", "x")  # vim deletes the character under its cursor: where we clicked
        outer.literal("w0", ":wq")
        outer.keys("w0", "Enter")
        wait_until(lambda: "line05 abdef" in text.read_text(), 15, 0.1, what=f"the click in vim; {text.read_text()!r}; {outer.screen('w0')}; {read(tiki_env, 'vim')}")
    finally:
        outer.close()
