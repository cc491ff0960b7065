"""What agent-state detection reads from a screen, kept up to date as the screen is fed.

`Screen` owns one `AgentHooks`: the program's own notifications (OSC 9/99/777 and BEL, found
by `NotificationScanner` in the decoded text, beside `ModeScanner`), and the visible rows as
plain text, refreshed only where the emulator reported a change, so a detector that looks ten
times a second at a busy tab re-reads a few rows, not the whole screen.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from . import clusters
from .agent_state_signals import Notification, NotificationScanner


class AgentHooks:
    __slots__ = ("_scanner", "_notes", "_rows", "_dirty")

    def __init__(self, rows: int) -> None:
        self._scanner = NotificationScanner()
        self._notes: list[Notification] = []
        self._rows: list[str] = []
        self._dirty: set[int] = set(range(rows))

    def scan(self, text: str, quiet: bool = False) -> None:
        """Look for notifications in decoded output (cheap on text without BEL or ESC ])."""
        found = self._scanner.scan(text, time.monotonic(), quiet)
        if found:
            self._notes += found

    def changed(self, rows: Iterable[int]) -> None:
        self._dirty.update(rows)

    def rows(self, view: Callable[[], list[Any]]) -> list[str]:
        """The visible rows as plain text (right-trimmed), top first."""
        if self._dirty:
            lines = view()
            if len(self._rows) != len(lines):
                self._rows = [""] * len(lines)
                self._dirty = set(range(len(lines)))
            for row in self._dirty:
                if row < len(lines):
                    self._rows[row] = clusters.restore(lines[row].text).rstrip()  # (as printed: no placeholders)
            self._dirty = set()
        return list(self._rows)

    def take_notifications(self) -> list[Notification]:
        notes, self._notes = self._notes, []
        return notes
