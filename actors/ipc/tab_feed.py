"""`TabFeed`: one tab's screen updates, encoded once, for every UI session watching it.

Only rows that read differently from the update before go out: the emulator marks every row a
program writes as changed, and programs that redraw in place (Ink -- Claude Code, Gemini CLI --,
spinners, status lines) rewrite a block of rows that mostly read the same (a Claude Code stand-in's
turn sent 1,484 rows, 88 of them different: bench/session_bytes.py). An update that changes nothing
a UI shows is not sent.
"""

from __future__ import annotations

import math
from typing import Any

from ...protocol.limits import ASK
from .ui_frames import ScreenFrame, event_body


class TabFeed:
    """One tab's screen updates, encoded once, for every session watching it."""

    def __init__(self, tab: int, terminal: Any) -> None:
        self.tab, self.terminal = tab, terminal
        self.sessions: tuple[Any, ...] = ()
        # What the last update left on each row and the rest it said (the notifier's alone).
        self._rows: dict[int, tuple[str, bool]] = {}
        self._meta: dict[str, Any] = {}
        self._serial = 0
        # The snapshot serial of the latest session to join (inf while it is being taken).
        self._joined: float = 0

    def on_update(self, update: Any) -> None:  # on the tab's notifier thread: must not block
        # An update is left to the rows that differ from the update before only when that one
        # came after every session's snapshot: a joiner has its snapshot, not the update before,
        # and a row that changed after that update and back before this one differs for it.
        whole = self._serial <= self._joined
        self._serial = update.serial
        screen = self._news(ScreenFrame.from_update(self.tab, update), whole)
        if screen is not None:
            for session in self.sessions:
                session.outbox.screen(screen)
        for text in update.clipboard:  # the program copied (OSC 52): the UIs may pass it on
            body = event_body({"kind": "clipboard", "tab": self.tab, "text": text})
            for session in self.sessions:
                session.outbox.event(body)

    def _news(self, screen: ScreenFrame, whole: bool) -> ScreenFrame | None:
        """`screen` without the rows that read as they did (None: nothing a UI shows changed)."""
        rows = {row: (text, screen.wraps.get(row, False)) for row, text in screen.lines.items()}
        same_meta = screen.meta == self._meta
        self._meta = screen.meta
        if screen.full:
            self._rows = rows
            return screen
        lines = {row: text for row, (text, wraps) in rows.items() if self._rows.get(row) != (text, wraps)}
        self._rows.update(rows)
        if whole:
            return screen
        if not lines and same_meta:
            return None
        return ScreenFrame(screen.tab, screen.serial, False, screen.meta, lines,
                           {row: screen.wraps[row] for row in lines if row in screen.wraps})

    def add(self, session: Any) -> None:
        """Start `session` on the tab's screen: its snapshot, then every update. Raises (and
        `session` is not added) when there is no snapshot: changed rows of a screen a UI
        never had draw rows on a blank one."""
        first = not self.sessions
        before, self._joined = self._joined, math.inf  # (updates go whole until one after the snapshot has)
        if first:  # (a restarted tab's feed starts on a new terminal: what it knew is stale)
            self._rows, self._meta = {}, {}
        self.sessions = (*self.sessions, session)  # before the snapshot: no update is missed
        try:
            call = self.terminal.watch(self.on_update) if first else self.terminal.snapshot()
            snapshot = call.get(timeout=ASK)
        except BaseException:
            self._joined = before
            self.remove(session)  # (the last one out unwatches: after the watch, in mailbox order)
            raise
        self._joined = snapshot.serial  # (joins are one at a time: the hub's lock)
        session.outbox.screen(ScreenFrame.from_update(self.tab, snapshot))

    def remove(self, session: Any) -> bool:
        """Returns whether the feed is now unused (and the tab unwatched)."""
        self.sessions = tuple(s for s in self.sessions if s is not session)
        if not self.sessions:
            self.terminal.unwatch(self.on_update)  # a tell in effect; a closed tab has nothing to undo
        return not self.sessions
