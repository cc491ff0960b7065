"""Only the rows that changed go down a UI session (issue 13's protocol: "then only the rows
that changed"). Programs that redraw in place -- Ink (Claude Code, Gemini CLI), a spinner, a
status line -- erase and rewrite lines that mostly read the same; the emulator marks every row
written as changed, and the host sent them all: a Claude Code stand-in's turn sent 1,484 rows
of which 88 differed from what the UI had (bench/session_bytes.py).

Here: a real `tiki serve`, a program in the tab that redraws its block the way Ink does (up a
line and erase it, for each line, then every line again), a UI session over the host's socket;
and the feed that leaves rows out, on a real emulator, with a UI joining between a row's change
and its undoing (a window of less than a frame in the field: never there on cue)."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import pykka
from conftest import BASH_TAB
from ui_protocol_helpers import Session

from tikitaka.actors.ipc.tab_feed import TabFeed
from tikitaka.actors.ipc.ui_frames import ScreenFrame
from tikitaka.terminals.screen import Screen

# Ink's redraw: for each line drawn last time, erase it and go up (ansi-escapes' eraseLines),
# then the whole block again. Twelve lines; only the spinner line (the last) differs per frame.
REDRAW = r"""
import sys, time
lines = [f"  line {n:2d}: the same text every frame" for n in range(11)]
spin, frames, gap = "-\\", int(sys.argv[1]), float(sys.argv[2])
drawn = 0
for frame in range(frames):
    out = "\x1b[2K\x1b[1A" * drawn + "\x1b[2K\r" if drawn else ""
    block = lines + [f"  {spin[frame % 2]} working"]
    sys.stdout.write(out + "\n".join(block))
    sys.stdout.flush()
    drawn = len(block) - 1
    time.sleep(gap)
print("\nREDRAWN", frames)
"""


def start_redraw(session: Session, tab: int, tmp_path: Path, frames: int, gap: float) -> None:
    script = tmp_path / "redraw.py"
    script.write_text(REDRAW)
    session.client.input(tab, f"clear; {sys.executable} {script} {frames} {gap}\r".encode())


def screen_frames(session: Session, tab: int, until: str) -> list[dict]:
    frames = []
    while True:
        event = session.next("screen", where=lambda e: e["tab"] == tab)
        frames.append(event)
        if until in session.screen():
            return frames


def test_a_program_redrawing_the_same_lines_sends_only_the_line_that_changed(serve, tmp_path):
    host = serve(BASH_TAB)
    ui = Session(host.env, 80, 24)
    sh = ui.tabs["sh"]
    ui.client.watch(sh)
    ui.next("screen")
    start_redraw(ui, sh, tmp_path, 40, 0.05)
    ui.until_screen("line 10")  # the block's first drawing: every line of it is news
    frames = screen_frames(ui, sh, "REDRAWN 40")
    assert len(frames) >= 10, len(frames)  # (20 frames a second at most; 2 s of redraws)
    sent = [len(frame["lines"]) for frame in frames[:-1]]  # (the last: the block left behind, REDRAWN)
    # The spinner's row each frame (before: all twelve of the block's). A read that splits a
    # redraw (a loaded machine) leaves a frame with the block erased, and the next draws it again.
    assert statistics.median(sent) <= 1 and sum(sent) <= 3 * len(sent), sent


class ScreenTerminal:
    """The two reads a feed asks of a tab's terminal actor, answered from a real emulator at
    the moment the test chooses (the actor's notifier thread makes its updates when it will)."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen

    def _answer(self) -> pykka.Future:
        future: pykka.Future = pykka.ThreadingFuture()
        future.set(self.screen.snapshot())
        return future

    def watch(self, callback: object) -> pykka.Future:
        self.screen.take_dirty()  # (as the actor does: the snapshot has every row)
        return self._answer()

    snapshot = _answer

    def unwatch(self, callback: object) -> None:
        pass


class Shown:
    """What a UI shows from the frames a feed gives it (rows' text by row), and which rows each
    frame carried."""

    def __init__(self) -> None:
        self.rows: dict[int, str] = {}
        self.sent: list[list[int]] = []
        self.outbox = self

    def screen(self, frame: ScreenFrame) -> None:
        body = json.loads(frame.body())
        if body["full"]:
            self.rows = {}
        self.sent.append(sorted(int(row) for row in body["lines"]))
        for row, line in body["lines"].items():
            self.rows[int(row)] = "".join(text for text, _ in line)

    def event(self, body: str) -> None:
        pass


def test_a_ui_joining_between_a_change_and_its_undoing_gets_the_row_that_changed_back():
    """A UI that joins a watched tab gets its snapshot, then diffs. A diff leaves out rows that
    read the same as in the diff before; a row that changed after that diff and back before
    the next one reads the same to that diff but not to the snapshot of a UI that joined in
    between: the joiner's first diff must carry it."""
    screen = Screen(40, 6)
    feed, first, joiner = TabFeed(1, ScreenTerminal(screen)), Shown(), Shown()
    screen.feed(b"\x1b[Hstatus: steady\r\nline 1")
    feed.add(first)
    for n in (2, 3):
        screen.feed(b"\x1b[Hstatus: steady\r\nline %d" % n)
        feed.on_update(screen.take_update())  # the diff before: row 0 "steady"
    assert first.sent == [[0, 1, 2, 3, 4, 5], [0, 1], [1]]  # (the first diff after a snapshot: whole)
    screen.feed(b"\x1b[Hstatus: JUMPED")
    feed.add(joiner)  # its snapshot: "JUMPED"
    assert joiner.rows[0].startswith("status: JUMPED")
    screen.feed(b"\x1b[Hstatus: steady")
    feed.on_update(screen.take_update())  # row 0 reads as in the diff before
    for ui in (first, joiner):
        assert ui.rows[0].startswith("status: steady") and ui.rows[1] == "line 3"
    for n in (4, 5):  # from here on only what changed goes again
        screen.feed(b"\x1b[Hstatus: steady\r\nline %d" % n)
        feed.on_update(screen.take_update())
        assert first.sent[-1] == joiner.sent[-1] == [1] and joiner.rows[1] == f"line {n}"
