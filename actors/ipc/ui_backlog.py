"""What the agent panel said before a UI attached: the events it logs, kept for the next UI.

The panel's log lives in the UI, so a UI that detached and attached again (or a second one)
started with an empty panel: the answer to the question asked before the SSH link dropped was
gone, though the host had sent it. The hub keeps the last events the panel writes a line for
-- bot-chat messages, notes, peer notes, a run's request, tool cards, corrections and end --
up to BACKLOG_BYTES of them (the oldest go first), and sends them to each UI after its hello
as one `backlog` event. Status-line progress (turns, generation figures) is not kept: it was
only ever true for the moment it was shown.
"""

from __future__ import annotations

from collections import deque
from typing import Any

BACKLOG_BYTES = 256 * 1024  # what one attach is sent at most (tool cards carry screens: ~1-8 KB)
LOGGED_RUN_KINDS = frozenset({"queued", "started", "loading", "tool_end", "correction", "compacted", "done", "error"})


def logged(event: dict[str, Any]) -> bool:
    """Whether the panel writes a line for `event` (a wire event)."""
    kind = event.get("kind")
    if kind in ("chat", "note"):
        return True
    if kind == "peer":
        return bool(event.get("note"))
    if kind == "run":
        return event.get("run", {}).get("kind") in LOGGED_RUN_KINDS
    return False


class Backlog:
    """Not thread-safe: the hub keeps it under its lock."""

    def __init__(self, limit: int = BACKLOG_BYTES) -> None:
        self.limit = limit
        self._bodies: deque[str] = deque()
        self._size = 0

    def keep(self, event: dict[str, Any], body: str) -> None:
        if not logged(event) or len(body) > self.limit:
            return
        self._bodies.append(body)
        self._size += len(body)
        while self._size > self.limit:
            self._size -= len(self._bodies.popleft())

    def event_body(self) -> str | None:
        """The `backlog` event (`events`: the kept events, oldest first), or None when empty."""
        if not self._bodies:
            return None
        return '{"kind":"backlog","events":[' + ",".join(self._bodies) + "]}"
