"""Frames that add up (issue 13's protocol): UIs that watch, switch, resize, attach, leave and
restart tabs while the tabs' programs draw colours, wide text, titles and modes, redraw rows in
place (with what they had, or only a new style), clear, scroll and switch screens -- and at the
end every UI shows what a UI attaching now is sent.

Each session takes its frames as the TUI does (merged while it is busy drawing:
app/tui/frame_inbox.py) and applies them by the rules protocol/README.md gives client writers
(a full frame replaces the screen; a frame that is not full lays its rows over it; a stale
serial is dropped). Once the tabs are quiet, a fresh session of the same size watches each
session's tab, and its snapshot is the truth: a row, its wrap, the cursor or a mode that
differs is a frame the host left out or sent wrong (a feed that dropped one changed row in ten
failed two seeds of three at 150 steps; one that dropped the frames changing only modes, or
compared rows without their wrap, two of three at 600). Seeded; TIKI_FUZZ_UI_FRAMES=<steps> and TIKI_FUZZ_UI_SEED=<n> run others by hand.
"""

from __future__ import annotations

import json
import os
import queue
import random
import sys
import time
from pathlib import Path
from typing import Any

from harness import wait_until
from ipc_helpers import request

from tikitaka.app.tui.frame_inbox import FrameInbox
from tikitaka.app.ui_client import UiClient
from tikitaka.protocol import ops

# Each tab runs a painter: what is typed into it (a line, `\e` for ESC, `\uXXXX` for a character)
# goes to its screen as it is, with nothing echoed and no newline added -- so most updates change
# a few rows in place, as a TUI's do, rather than scrolling the screen (a scroll sends every row).
PAINTER = ("import codecs, os, tty\ntty.setraw(0)\nbuf = b''\nwhile data := os.read(0, 65536):\n"
           "    *lines, buf = (buf + data).split(b'\\r')\n"
           "    for line in lines:\n"
           "        text = codecs.decode(line.decode().replace('\\\\e', '\\\\x1b'), 'unicode_escape')\n"
           "        os.write(1, text.encode('utf-8', 'surrogatepass'))\n")
TABS = "".join(f'[[tab]]\nname = "t{i}"\ncommand = {json.dumps([sys.executable, "-c", PAINTER])}\n' for i in range(3))
SIZES = [(80, 24), (60, 14), (100, 30), (40, 10), (120, 40)]
# What is typed: {n} a counter, {c} a colour, {r};{col} a place. Most of it changes rows in
# place (a frame of those rows); some changes every row (a whole frame).
IN_PLACE = [
    r"\e[3{c}mcolour {n}\e[0m plain ", r"\e[1mbold {n}\e[22m ", r"\e[{r};{col}Hat {n}", r"\e[K", r"\e[1K",
    r"\e[2K", r"wide \u4e2d\u6587\ud55c\uad6d {n} ", r"\e]0;title {n}\a", r"\e[?25l", r"\e[?25h",
    r"\e[?2004h", r"\e[?2004l", r"\e[?1h", r"\e[?1l", r"\e[?1000h", r"\e[?1000l", r"\e[5;1Hsame row\e[5;1Hsame row",
    r"\e[6;1H\e[1mstyle only\e[0m\e[6;1Hstyle only", r"\e[{r};1H\e[2A\e[2K\e[1B\e[2Kink {n}\r\n\e[2Kink {n}",
    r"\e[7;1H\e[44m   \e[0m", r"\e[2 q", r"\e[0 q", r"\e[4@", r"\e[3P", r"\e[{r};1H\e[2Kspinner {c}",
    r"\e[{r};1H\e[2Kspinner {c}\e[{r};1H\e[2Kspinner {c}", r"\e[{r};{col}H", r"\e[{r};1H" + "y" * 70,
    r"\e[{r};{col}H\e[7m{n}\e[27m", r"\e[{r};1H\e[2K\e[{r};1Hback {c}",
]
WHOLE = [r"\e[H\e[2J", "x" * 130 + r"\r\n", r"\e[?1049h", r"\e[?1049l", r"\e[3;8r\n\n\n\n\e[r", r"\e[S", r"\e[T",
         r"\e[L", r"\e[M", r"\r\n"]


class View:
    """One UI session and the screen its frames add up to (protocol/README.md's rules)."""

    def __init__(self, env: dict[str, str], size: tuple[int, int], tab: int | None) -> None:
        self.client = UiClient(Path(env["TIKI_SOCKET"]), client="frames")
        self.hello = self.client.connect(*size)
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.closed: list[str] = []
        self.client.start(self.events.put, self.closed.append)
        self.size, self.tab, self.serial = size, -1, 0
        self.rows: list[list] = []
        self.wrapped: set[int] = set()  # rows that go on in the next
        self.last: dict[str, Any] = {}
        self.frame_at = time.monotonic()
        self.inbox = FrameInbox()
        if tab is not None:
            self.watch(tab)

    def watch(self, tab: int) -> None:
        self.take()
        self.tab, self.serial, self.rows, self.wrapped, self.last = tab, 0, [], set(), {}
        self.client.watch(tab)

    def resize(self, size: tuple[int, int]) -> None:
        self.size = size
        self.client.resize(*size)

    def take(self, draw: bool = True) -> None:
        """Take what arrived; with `draw`, apply the frame of the tab shown, merged as the TUI
        merges the frames it has not drawn yet (app/tui/frame_inbox.py) -- a UI busy drawing
        takes several at once."""
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                break
            if event.get("kind") == "screen":
                self.inbox.put(event)
                self.frame_at = time.monotonic()
        frame = self.inbox.take(self.tab) if draw else None
        if frame is None:
            return
        if frame["full"]:
            self.rows, self.wrapped = [[] for _ in range(frame["rows"])], set()
        elif not self.serial or frame["serial"] <= self.serial:
            return  # (before this watch's snapshot, or stale)
        for row, line in frame["lines"].items():
            if int(row) < len(self.rows):
                self.rows[int(row)] = line
                (self.wrapped.add if int(row) in frame.get("wrapped", ()) else self.wrapped.discard)(int(row))
        self.serial, self.last = frame["serial"], frame

    def shown(self) -> dict[str, Any]:
        keys = ("cols", "rows", "cursor", "title", "alt_screen", "bracketed_paste", "app_cursor", "mouse",
                "cursor_style", "history")
        return {"lines": [_runs(line) for line in self.rows], "wrapped": sorted(self.wrapped),
                **{key: self.last.get(key) for key in keys}}

    def close(self) -> None:
        self.client.close()


def _runs(line: list) -> list:
    """A row's runs, neighbours of one style joined, trailing default blanks left out (two
    encodings of the same cells read the same)."""
    out: list[list[str]] = []
    for text, sgr in line:
        if out and out[-1][1] == sgr:
            out[-1][0] += text
        elif text:
            out.append([text, sgr])
    while out and out[-1][1] == "" and not out[-1][0].strip():
        out.pop()
    if out and out[-1][1] == "":
        out[-1][0] = out[-1][0].rstrip()
    return out


def size_of(rng: random.Random) -> tuple[int, int]:
    """Mostly the size the others have: a tab takes the size of the UI used last, and UIs of
    different sizes make every switch between them a resize (whole frames)."""
    return SIZES[0] if rng.random() < 0.9 else rng.choice(SIZES)


def command(rng: random.Random, n: int) -> str:
    if rng.random() < 0.05:  # a burst of lines: the screen scrolls
        return "".join(f"line {n}.{i}\\r\\n" for i in range(rng.choice([5, 60, 400]))) + "\r"
    pieces = "".join(rng.choice(WHOLE if rng.random() < 0.06 else IN_PLACE) for _ in range(rng.randrange(1, 4)))
    return pieces.format(c=rng.randrange(8), n=n, r=rng.randrange(1, 30), col=rng.randrange(1, 90)) + "\r"


def test_every_ui_ends_on_the_screen_a_new_ui_is_sent(serve):
    host = serve(TABS)
    steps = int(os.environ.get("TIKI_FUZZ_UI_FRAMES", "300"))
    rng = random.Random(int(os.environ.get("TIKI_FUZZ_UI_SEED", "20261207")))
    views: list[View] = []
    log: list[str] = []
    try:
        first = View(host.env, SIZES[0], None)
        tabs = [tab["id"] for tab in first.hello["tabs"]]
        names = {tab["id"]: tab["name"] for tab in first.hello["tabs"]}
        first.watch(tabs[0])
        views.append(first)
        for n in range(steps):
            for view in views:
                view.take(draw=rng.random() < 0.5)
            view = rng.choice(views)
            r = rng.random()
            if r < 0.8:
                tab = rng.choice(tabs)
                text = command(rng, n)
                view.client.input(tab, text.encode())
                log.append(f"{n}: ui{views.index(view)} types into {tab}: {text!r}")
            elif r < 0.87:
                tab = rng.choice(tabs)
                view.watch(tab)
                log.append(f"{n}: ui{views.index(view)} watches {tab}")
            elif r < 0.9:
                size = size_of(rng)
                view.resize(size)
                log.append(f"{n}: ui{views.index(view)} resizes to {size}")
            elif r < 0.95 and len(views) < 3:
                views.append(View(host.env, size_of(rng), rng.choice(tabs)))
                log.append(f"{n}: ui{len(views) - 1} attaches, watching {views[-1].tab}")
            elif r < 0.98 and len(views) > 1:
                views.remove(view)
                view.close()
                log.append(f"{n}: a ui leaves")
            elif r < 0.99:  # (its program starts again, on the screen the tab had: a divider between)
                tab = rng.choice(tabs)
                view.client.call(ops.TERMINAL_RESTART, {"name": names[tab]})
                log.append(f"{n}: ui{views.index(view)} restarts {tab}")
            time.sleep(rng.random() * 0.06)

        # quiet: every command done, no frame for a second on any session
        def quiet() -> bool:
            for view in views:
                view.take()
            return all(view.serial and time.monotonic() - view.frame_at > 1.0 for view in views)

        wait_until(quiet, 60, 0.05, what="the tabs to go quiet")
        for index, view in enumerate(views):
            assert not view.closed, view.closed
            size = (view.last["cols"], view.last["rows"])
            fresh = View(host.env, size, view.tab)
            try:
                wait_until(lambda: fresh.take() or fresh.serial, 15, 0.02, what="a fresh snapshot")
                time.sleep(0.3)
                fresh.take()
                view.take()
                want, got = fresh.shown(), view.shown()
                differ = [f"row {row}:\n  shown {a}\n  sent now {b}" for row, (a, b)
                          in enumerate(zip(got["lines"], want["lines"])) if a != b]
                differ += [f"{key}: shown {got[key]} sent now {want[key]}" for key in want if key != "lines"
                           and got[key] != want[key]]
                assert not differ, f"ui{index} on tab {view.tab}:\n" + "\n".join(differ[:8]) + \
                    "\n-- the steps:\n" + "\n".join(log[-40:])
            finally:
                fresh.close()
        health = request(host.env, "host.info")["result"]["health"]
        assert {name: h for name, h in health.items() if h["state"] != "ok" or h["failures"]} == {}, health
    finally:
        for view in views:
            view.close()
