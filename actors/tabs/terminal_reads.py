"""What a tab shows, read under its lock: the screen for a UI that starts watching it (and the
watchers that get its updates), snapshots, the cells, the history and the text a reader asks
for. A mixin of `TerminalActor`; every read waits out a synchronized update (`_drawn`), so
nobody sees half a redraw."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

from ...terminals.grid import grid
from ...terminals.screen import Screen


class TerminalReads:
    _lock: threading.Lock
    _screen: Screen
    _watchers: tuple[Any, ...]
    spec: Any

    def watch(self, callback: Any) -> Any:
        """A UI starts showing this tab: from now on `callback(update)` gets every coalesced
        `ScreenUpdate` (on the notifier thread; it must not block). Returns a full snapshot to
        start from (updates carry serials: one older than the snapshot is stale)."""
        with self._drawn() as screen:
            first = not self._watchers
            self._watchers = (*self._watchers, callback)
            self._agent.seen()  # type: ignore[attr-defined]
            snapshot = screen.snapshot()
            if first:
                # The snapshot holds every row: changes made before it are nobody's to send (the
                # resize to the UI's size just before it marks every row: the UI got the same
                # screen twice and painted a tab shown for the first time twice).
                screen.take_dirty()
            return snapshot

    def unwatch(self, callback: Any) -> None:
        with self._lock:
            # `==`, not `is`: a bound method (`feed.on_update`) is a new object at every access.
            self._watchers = tuple(w for w in self._watchers if w != callback)

    @contextmanager
    def _drawn(self) -> Iterator[Any]:
        """The screen, under the lock, once the program is not half-way through a synchronized
        update (DECSET 2026; SYNC_LIMIT at most): what a UI shows, reads and the detector see
        alike -- never half a redraw."""
        while True:
            self._lock.acquire()
            held = self._screen.sync_hold(time.monotonic())
            if held <= 0:
                break
            self._lock.release()
            time.sleep(min(held, 0.005))
        try:
            yield self._screen
        finally:
            self._lock.release()

    def snapshot(self) -> Any:
        with self._drawn() as screen:
            return screen.snapshot()

    def cells(self) -> dict[str, Any]:
        with self._drawn() as screen:
            return grid(screen)

    def history(self, start: int, stop: int) -> list[Any]:
        with self._lock:
            return self._screen.history_lines(start, stop)

    def history_page(self, offset: int, count: int, start: int | None = None, screen: bool = False) -> Any:
        """`terminals.screen_read.HistoryPage`."""
        with self._lock:
            return self._screen.history_page(offset, count, start, screen)

    def read_text(self, lines: int = 40) -> dict[str, Any]:
        with self._drawn() as screen:
            text = screen.text(lines)
            row, col, _visible = screen.cursor
            return {
                "name": self.spec.name,
                "lines": lines,
                "text": text,
                "cursor": {"row": row, "col": col},
                "title": screen.title,
                "alt_screen": screen.alt_screen,
            }
