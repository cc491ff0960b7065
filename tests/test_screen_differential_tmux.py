"""The tab's screen against a tmux pane, on random mixes of what programs print (issue 11's
"screens as good as tmux", kept honest between releases of pyavt and of our fixes to it).

Each mix (`vt_mix`: seeded; what it leaves out and why is said there) is written into a tmux
pane of 20x6 by `cat`, with the line discipline's output processing off so that a bare LF
stays a bare LF, and fed to a `Screen` -- the emulator a tab runs -- in random pieces (cut
anywhere: inside an escape sequence, inside a UTF-8 character; a piece written on its own is
a read of its own), with frames taken between some of them as a watching UI takes them
(`take_update`, which also flushes the held-back lines of a flood at a different point each
time). What a UI would then show -- the frames
applied one over the other -- must be tmux's screen cell for cell, characters and attributes
as tmux's capture shows them; the cursor where tmux has it; the history the same lines.

A failure prints the mix; `TIKI_VT_SEED=<n>` runs that seed alone (and `TIKI_VT_MIXES` more
of them, to look for new differences).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from fidelity import compare
from tmux_cells import DEFAULT, Cell, parse_capture, width
from vt_mix import COLS, ROWS, Mix, mix

from tikitaka.terminals.screen import Screen, StyledLine

pytestmark = [pytest.mark.tmux, pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (the reference)")]

FIRST = int(os.environ.get("TIKI_VT_SEED", "0"))
COUNT = int(os.environ.get("TIKI_VT_MIXES", "1" if "TIKI_VT_SEED" in os.environ else "48"))


class Panes:
    """One tmux server, a window per mix, each `cat`ting its mix once and signalling done."""

    def __init__(self, where: Path, mixes: list[Mix]) -> None:
        self.socket = str(where / "tmux.sock")
        for index, case in enumerate(mixes):
            path = where / f"mix{index}"
            path.write_bytes(case.data)
            command = f"stty -opost; cat {path}; tmux -S {self.socket} wait-for -S done{index}; exec sleep 600"
            if index == 0:
                self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(COLS), "-y", str(ROWS), "-n", "w0", command)
            else:
                self.tmux("new-window", "-d", "-n", f"w{index}", command)
        for index in range(len(mixes)):
            self.tmux("wait-for", f"done{index}")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout

    def read(self, index: int) -> tuple[list[list[Cell]], list[str], tuple[int, int]]:
        window = f"w{index}"
        screen = parse_capture(self.tmux("capture-pane", "-p", "-e", "-N", "-t", window).rstrip("\n"), COLS, ROWS)
        row, col, history = map(int, self.tmux("display", "-p", "-t", window,
                                               "#{cursor_y} #{cursor_x} #{history_size}").split())
        lines = parse_capture(self.tmux("capture-pane", "-p", "-e", "-S", "-", "-E", "-1", "-t", window).rstrip("\n"),
                              COLS, history) if history else []
        return screen, ["".join(cell.char for cell in line).rstrip() for line in lines], (row, col)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


def cells(line: StyledLine) -> list[Cell]:
    row: list[Cell] = []
    for text, style in line:
        key = (style.fg, style.bg, style.bold, style.faint, style.italic, style.underline, style.strike,
               style.blink, style.inverse)
        for char in text:
            if width(char) == 0 and row:
                row[-1] = Cell(row[-1].char + char, row[-1].style)
                continue
            row.append(Cell(char, key))
            if width(char) == 2:
                row.append(Cell("", key))
    return (row + [Cell(" ", DEFAULT)] * COLS)[:COLS]


def as_a_ui_sees_it(case: Mix, seed: int) -> tuple[list[list[Cell]], list[str], tuple[int, int]]:
    """Feed the mix in random pieces, taking frames now and then; the frames applied in turn."""
    rng = random.Random(seed)
    screen = Screen(COLS, ROWS, scrollback=2000)
    shown: dict[int, StyledLine] = {}
    data, start = case.data, 0
    offsets = [0]  # where each piece starts and ends in `data`
    for piece in case.pieces:
        offsets.append(offsets[-1] + len(piece.encode()))
    writes = sorted({offsets[i] for i in case.alone} | {offsets[i + 1] for i in case.alone})
    update = screen.take_update(full=True)
    while start < len(data):
        stop = min(len(data), start + rng.choice([1, 2, 3, 7, 16, 64, 512]),
                   *(write for write in writes if write > start))
        screen.feed(data[start:stop])
        start = stop
        if rng.random() < 0.2:
            update = screen.take_update()
            shown = dict(update.lines) if update.full else {**shown, **update.lines}
    update = screen.take_update()
    shown = dict(update.lines) if update.full else {**shown, **update.lines}
    history = ["".join(cell.char for cell in cells(line)).rstrip() for line in screen.history_lines(0, 10**6)]
    return [cells(shown.get(row, ())) for row in range(ROWS)], history, update.cursor[:2]


def text_lines(history: list[str]) -> list[str]:
    """The history lines with text in them (see vt_mix on blank ones)."""
    return [line for line in history if line]


def first_difference(ours: list[str], theirs: list[str]) -> str:
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    return f"{len(ours)} lines, tmux {len(theirs)}; from line {at}: ours {ours[at:at + 3]}, tmux {theirs[at:at + 3]}"


@pytest.mark.parametrize("wide", [False, True], ids=["narrow", "wide"])
def test_random_mixes_show_what_a_tmux_pane_shows(tmp_path, wide):
    seeds = [FIRST + n for n in range(COUNT)]
    mixes = [mix(seed, wide) for seed in seeds]
    panes = Panes(tmp_path, mixes)
    try:
        failures = []
        for index, (seed, case) in enumerate(zip(seeds, mixes)):
            theirs, their_history, their_cursor = panes.read(index)
            ours, our_history, our_cursor = as_a_ui_sees_it(case, seed)
            score = compare(f"seed {seed}", ours, theirs, (our_cursor, their_cursor))
            wrong = [what for what, same in (("cells", score.same_cells == score.cells),
                                             ("cursor", our_cursor == their_cursor),
                                             ("history", case.mid_margins or text_lines(our_history) == text_lines(their_history)))
                     if not same]
            if wrong:
                failures.append(f"TIKI_VT_SEED={seed} ({'wide' if wide else 'narrow'}): {', '.join(wrong)} differ\n"
                                f"  mix: {''.join(case.pieces)!r}\n  cursor: ours {our_cursor}, tmux {their_cursor}\n"
                                f"  history: {first_difference(text_lines(our_history), text_lines(their_history))}\n" + score.report())
        assert not failures, "\n".join(failures[:4]) + f"\n({len(failures)} of {len(mixes)} mixes differ)"
    finally:
        panes.close()
