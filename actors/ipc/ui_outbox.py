"""What waits to go down one UI session, and the thread that sends it.

Nothing that produces frames ever waits for a UI: events are queued, screen frames are merged
into the one not sent yet (per tab), and one sender thread per session writes them. A UI that
reads slowly therefore gets fewer, fuller frames -- never a backlog, never more than a
screenful per tab waiting -- and slows nobody else. Screen frames go at most `fps` times a
second, though two may go back to back (`frame_budget`); events go at once. A UI that reads
nothing for `SEND_TIMEOUT` seconds, or lets more than `MAX_EVENTS` events or `MAX_BYTES` of
them pile up, is dropped (it can attach again).
"""

from __future__ import annotations

import socket
import threading
from collections import deque
from typing import Callable

from ..frame_budget import FrameBudget
from .ui_frames import ScreenFrame, frame

MAX_EVENTS = 20_000  # events waiting for one UI before it counts as gone
# ... or this many bytes of them: a page of history may be 10,000 rows (~1 MB), and a UI that
# asks for pages without reading them must not fill the host's memory (and take its tabs down).
MAX_BYTES = 64 * 1024 * 1024
SEND_TIMEOUT = 60.0  # seconds a UI may leave its socket unread


class Outbox:
    def __init__(self, conn: socket.socket, prefix: bytes, fps: int, on_gone: Callable[[str], None]) -> None:
        self._conn = conn
        self._prefix = prefix
        # (The frame a flood ends with, or a key's echo, right after another does not wait out
        # 1/fps: 16.7 ms at 60, measured, was the longest part of the attached `seq` run's tail.)
        self._budget = FrameBudget(max(1, fps))
        self._on_gone = on_gone
        self._cond = threading.Condition()
        self._events: deque[bytes] = deque()
        self._queued = 0  # bytes in `_events`
        self._screens: dict[int, ScreenFrame] = {}
        # The tab the UI just started watching, until its snapshot is here: the tab's diffs can
        # arrive first (they come from the tab's notifier, the snapshot by way of the hub) and
        # wait to be merged with it -- a UI's first frame of a tab is the whole screen.
        self._awaiting: int | None = None
        self._closed = False
        self.frames_sent = 0
        self.merged = 0  # frames folded into a pending one because the UI was not ready

    # -- producers (any thread; never block) ------------------------------------------------

    def event(self, body: str) -> None:
        data = frame(self._prefix, body)
        with self._cond:
            if self._closed:
                return
            if len(self._events) >= MAX_EVENTS or self._queued + len(data) > MAX_BYTES:
                self._closed = True
                self._cond.notify()
                gone = f"{len(self._events)} events ({self._queued >> 20} MB)"
            else:
                self._events.append(data)
                self._queued += len(data)
                self._cond.notify()
                gone = None
        if gone:
            self._on_gone(f"the UI fell {gone} behind")

    def screen(self, update: ScreenFrame) -> None:
        with self._cond:
            if self._closed:
                return
            pending = self._screens.get(update.tab)
            if pending is not None:
                self.merged += 1
                update = pending.merge(update)
            self._screens[update.tab] = update
            if update.full and update.tab == self._awaiting:
                self._awaiting = None
            self._cond.notify()

    def watching(self, tab: int | None) -> None:
        """The UI (re)started watching `tab`: frames of the others that were not sent are
        dropped, and the tab's wait for the snapshot that is on its way (None: no snapshot is
        coming after all -- nothing waits)."""
        with self._cond:
            for other in [t for t in self._screens if t != tab]:
                del self._screens[other]
            self._awaiting = tab

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    # -- the sender thread ------------------------------------------------------------------

    def run(self) -> None:
        while True:
            with self._cond:
                while True:
                    wait = self._budget.wait()
                    ready = any(tab != self._awaiting for tab in self._screens)
                    due = ready and wait == 0.0
                    if self._closed or self._events or due:
                        break
                    self._cond.wait(wait if ready else None)
                if self._closed:
                    return
                data = list(self._events)
                self._events.clear()
                self._queued = 0
                screens = [pending for tab, pending in self._screens.items() if tab != self._awaiting] if due else []
                for screen in screens:
                    del self._screens[screen.tab]
                if due:
                    self._budget.spend()
            data.extend(frame(self._prefix, screen.body()) for screen in screens)
            try:
                self._conn.sendall(b"".join(data))
            except (OSError, socket.timeout) as exc:
                self.close()
                self._on_gone(f"the UI stopped reading ({type(exc).__name__})")
                return
            self.frames_sent += len(screens)
