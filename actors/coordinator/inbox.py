"""Peer messages that arrive while a coordinator run is active; a pending `wait` wakes at once."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable


class PeerInbox:
    """Peer messages that arrive while a run is active; a pending `wait` wakes at once."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._messages: list[dict[str, Any]] = []

    def put(self, sender: str, text: str, verified: bool) -> None:
        with self._cv:
            self._messages.append({"from": sender, "text": text, "verified": verified})
            self._cv.notify_all()

    def wake(self) -> None:
        with self._cv:
            self._cv.notify_all()

    def pending(self) -> int:
        with self._cv:
            return len(self._messages)

    def drain(self) -> list[dict[str, Any]]:
        with self._cv:
            messages, self._messages = self._messages, []
            return messages

    def wait(self, seconds: float, cancel: threading.Event) -> list[dict[str, Any]]:
        deadline = time.monotonic() + seconds
        with self._cv:
            while not self._messages and not cancel.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(left)
            messages, self._messages = self._messages, []
            return messages

    def wait_for(self, senders: Callable[[], set[str]], seconds: float,
                 cancel: threading.Event) -> dict[str, Any] | None:
        """The first message from any of `senders()` (casefolded names; others stay queued), or
        None after `seconds`. The names are asked again on each wake-up, outside the lock: a tab
        renamed while we wait answers under its new name."""
        deadline = time.monotonic() + seconds
        while not cancel.is_set():
            wanted = senders()
            with self._cv:
                for index, message in enumerate(self._messages):
                    if message["from"].casefold() in wanted:
                        return self._messages.pop(index)
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(min(left, 0.5))
        return None

    def take_from(self, sender: str) -> list[dict[str, Any]]:
        """Remove and return the messages already queued from `sender` (older than a question
        about to be asked: they do not answer it)."""
        wanted = sender.casefold()
        with self._cv:
            taken = [m for m in self._messages if m["from"].casefold() == wanted]
            self._messages = [m for m in self._messages if m["from"].casefold() != wanted]
            return taken

    def put_back(self, messages: list[dict[str, Any]]) -> None:
        """Queue `messages` again, ahead of newer ones."""
        with self._cv:
            self._messages[:0] = messages
