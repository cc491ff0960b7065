"""Peer messages that arrive while a coordinator run is active; a pending `wait` wakes at once.

Each message is kept with the moment it arrived (not shown to the model): a relay tells what a
peer said before its question was typed -- the answer to an earlier one -- from its reply.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Callable


class PeerInbox:
    """Peer messages that arrive while a run is active; a pending `wait` wakes at once."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._queue: list[tuple[float, dict[str, Any]]] = []  # (when it arrived, monotonic; the message)

    def put(self, sender: str, text: str, verified: bool) -> None:
        with self._cv:
            self._queue.append((time.monotonic(), {"from": sender, "text": text, "verified": verified}))
            self._cv.notify_all()

    def wake(self) -> None:
        with self._cv:
            self._cv.notify_all()

    def pending(self) -> int:
        with self._cv:
            return len(self._queue)

    def drain(self) -> list[dict[str, Any]]:
        with self._cv:
            return self._take_all()

    def _take_all(self) -> list[dict[str, Any]]:
        queue, self._queue = self._queue, []
        return [message for _, message in queue]

    def wait(self, seconds: float, cancel: threading.Event) -> list[dict[str, Any]]:
        deadline = time.monotonic() + seconds
        with self._cv:
            while not self._queue and not cancel.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(left)
            return self._take_all()

    def wait_for(self, senders: Callable[[], set[str]], seconds: float,
                 cancel: threading.Event) -> dict[str, Any] | None:
        """The first message from any of `senders()` (casefolded names; others stay queued), or
        None after `seconds`. The names are asked again on each wake-up, outside the lock: a tab
        renamed while we wait answers under its new name."""
        deadline = time.monotonic() + seconds
        while not cancel.is_set():
            wanted = senders()
            with self._cv:
                for index, (_, message) in enumerate(self._queue):
                    if message["from"].casefold() in wanted:
                        return self._queue.pop(index)[1]
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(min(left, 0.5))
        return None

    def take_from(self, senders: set[str], before: float = math.inf) -> list[dict[str, Any]]:
        """Remove and return the messages from any of `senders` (casefolded names) that arrived
        before `before` (monotonic; by default all queued now): said before a question was
        asked or typed, they do not answer it."""
        with self._cv:
            taken: list[dict[str, Any]] = []
            kept: list[tuple[float, dict[str, Any]]] = []
            for at, message in self._queue:
                if message["from"].casefold() in senders and at < before:
                    taken.append(message)
                else:
                    kept.append((at, message))
            self._queue = kept
            return taken

    def put_back(self, messages: list[dict[str, Any]]) -> None:
        """Queue `messages` again, ahead of newer ones (as having arrived long ago)."""
        with self._cv:
            self._queue[:0] = [(-math.inf, message) for message in messages]
