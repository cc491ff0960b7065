"""The fidelity driver (issue 11): one program in a tikitaka tab and in a tmux pane of the same
size, the same keystrokes to both, and the two screens compared cell by cell.

The tikitaka side is driven the way a user scripts it -- `tiki terminal-key` and `tiki
terminal-send --literal` -- and read with `tiki terminal-read --cells`. The tmux side gets the
same bytes (`send-keys -H`, the key encoded for the pane's cursor-key mode) and is read with
`capture-pane -e`, whose SGR codes give the attributes tmux keeps. Both run with the same
environment (TERM=xterm-256color, COLORTERM, HOME, locale), so the program sends both the same
output: what differs is the emulation. Used by tests/test_fidelity.py (a fast subset) and
bench/fidelity.py (every screen).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tmux_cells import Cell, parse_capture

from tikitaka.terminals.keys import key_bytes

TMUX_CONF = "set -g default-terminal xterm-256color\nset -g status off\nset -sg escape-time 0\n" \
            "set -g history-limit 2000\nset -g remain-on-exit on\n"


@dataclass
class Score:
    screen: str
    cells: int
    same_chars: int
    same_cells: int  # characters and attributes
    cursor_same: bool
    diffs: list[str] = field(default_factory=list)
    rows: list[tuple[str, str]] = field(default_factory=list)  # (ours, tmux) text of each row

    def report(self) -> str:
        """The rows that differ, ours above tmux's, for reading a failure."""
        lines = [f"{self.screen}: {self.full:.2%} identical"]
        for row, (a, b) in enumerate(self.rows):
            if a != b:
                lines += [f"{row:2} ours |{a}", f"   tmux |{b}"]
        return "\n".join(lines + self.diffs)

    @property
    def chars(self) -> float:
        return self.same_chars / self.cells

    @property
    def full(self) -> float:
        return self.same_cells / self.cells


def tiki_cells(grid: dict[str, Any]) -> list[list[Cell]]:
    styles = [_style_key(s) for s in grid["styles"]]
    return [[Cell(char or "", styles[style]) for char, style in row] for row in grid["cells"]]


def _style_key(style: dict[str, Any]) -> tuple:
    fg, bg = style["fg"], style["bg"]
    return (tuple(fg) if isinstance(fg, list) else fg, tuple(bg) if isinstance(bg, list) else bg,
            style["bold"], style["faint"], style["italic"], style["underline"], style["strike"],
            style["blink"], style["inverse"])


def compare(name: str, ours: list[list[Cell]], theirs: list[list[Cell]], cursors: tuple[Any, Any]) -> Score:
    cells = same_chars = same = 0
    diffs = []
    for row, (a_row, b_row) in enumerate(zip(ours, theirs)):
        for col, (a, b) in enumerate(zip(a_row, b_row)):
            cells += 1
            chars = a.char.strip() == b.char.strip()
            same_chars += chars
            # a blank shows its background, inverse, underline and strike-through; its other
            # attributes are invisible
            if b.style is None:
                style = True
            elif a.char.strip():
                style = a.style == b.style
            else:
                style = all(a.style[i] == b.style[i] for i in (1, 5, 6, 8))
            same += chars and style
            if not (chars and style) and len(diffs) < 12:
                diffs.append(f"r{row}c{col}: ours {a.char!r} {a.style} tmux {b.char!r} {b.style}")
    rows = [("".join(c.char for c in a).rstrip(), "".join(c.char for c in b).rstrip()) for a, b in zip(ours, theirs)]
    return Score(name, cells, same_chars, same, cursors[0] == cursors[1], diffs, rows)


class Pair:
    """A program in a tikitaka tab and in a tmux pane, driven together."""

    def __init__(self, tiki: Callable[..., subprocess.CompletedProcess], env: dict[str, str], workdir: Path,
                 cols: int, rows: int) -> None:
        self.tiki, self.env, self.cols, self.rows = tiki, dict(env), cols, rows
        self.socket = f"tkfid{os.getpid()}{id(self) % 10000}"
        conf = workdir / "tmux.conf"
        conf.write_text(TMUX_CONF)
        self._tmux_base = ["tmux", "-L", self.socket, "-f", str(conf)]
        self.tab = ""

    def tmux(self, *args: str) -> str:
        result = subprocess.run([*self._tmux_base, *args], env=self.env, capture_output=True, text=True, timeout=30)
        return result.stdout

    def start(self, name: str, argv: list[str], cwd: Path) -> None:
        self.tab = name
        made = self.tiki("terminal-new", name, "--cwd", str(cwd), "--role", "shell", "--", *argv)
        assert made.returncode == 0, made.stderr
        self.tmux("new-session", "-d", "-s", name, "-x", str(self.cols), "-y", str(self.rows), "-c", str(cwd),
                  shlex.join(argv))

    def stop(self) -> None:
        if self.tab:
            self.tiki("terminal-close", self.tab)
            self.tmux("kill-session", "-t", self.tab)
            self.tab = ""

    def close(self) -> None:
        self.stop()
        self.tmux("kill-server")
        # (tmux leaves its socket behind)
        Path(self.env.get("TMUX_TMPDIR") or "/tmp", f"tmux-{os.getuid()}", self.socket).unlink(missing_ok=True)

    # -- input -----------------------------------------------------------------------------

    def key(self, *names: str) -> None:
        for name in names:
            sent = self.tiki("terminal-key", self.tab, name)
            assert sent.returncode == 0, sent.stderr
            app = self.tmux("display", "-p", "-t", self.tab, "#{keypad_cursor_flag}").strip() == "1"
            self.tmux("send-keys", "-t", self.tab, "-H", *(f"{b:02x}" for b in key_bytes(name, app_cursor=app)))

    def type(self, text: str) -> None:
        # (--now: the scenario types what it means to, also into an agent that waits for its
        # user -- Codex's API key box -- where a plain send is refused.)
        sent = self.tiki("terminal-send", self.tab, text, "--literal", "--no-enter", "--now")
        assert sent.returncode == 0, sent.stderr
        self.tmux("send-keys", "-t", self.tab, "-l", text)

    # -- output ----------------------------------------------------------------------------

    def read(self) -> tuple[list[list[Cell]], tuple[int, int], list[list[Cell]], tuple[int, int]]:
        grid = json.loads(self.tiki("terminal-read", self.tab, "--cells").stdout)
        ours = tiki_cells(grid)
        capture = self.tmux("capture-pane", "-p", "-e", "-N", "-t", self.tab)
        theirs = parse_capture(capture, self.cols, self.rows)
        x, y = self.tmux("display", "-p", "-t", self.tab, "#{cursor_x} #{cursor_y}").split()
        # tmux puts the cursor one past the last column in the pending-wrap state; we on it
        return ours, (grid["cursor"]["row"], grid["cursor"]["col"]), theirs, (int(y), min(int(x), self.cols - 1))

    def rows_of_ours(self) -> list[str]:
        """Our screen's rows as text, once both sides settled."""
        ours = self.settle()[0]
        return ["".join(cell.char for cell in row).rstrip() for row in ours]

    def settle(self, quiet: float = 0.4, timeout: float = 20.0) -> tuple:
        """Read both sides until neither changed for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while True:
            now = self.read()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet or time.monotonic() > deadline:
                return now
            time.sleep(0.1)

    def wait_for(self, text: str, timeout: float = 20.0) -> None:
        """Until `text` is on both screens (a program that takes a while to start)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ours, _, theirs, _ = self.read()
            if all(any(text in "".join(c.char for c in row) for row in side) for side in (ours, theirs)):
                return
            time.sleep(0.1)
        sides = {name: "\n".join("".join(c.char for c in row).rstrip() for row in side)
                 for name, side in (("tikitaka", ours), ("tmux", theirs))}
        raise AssertionError(f"{text!r} did not appear on both screens:\n" +
                             "\n".join(f"--- {name}\n{screen}" for name, screen in sides.items()))

    def score(self, name: str) -> Score:
        ours, our_cursor, theirs, their_cursor = self.settle()
        return compare(name, ours, theirs, (our_cursor, their_cursor))
