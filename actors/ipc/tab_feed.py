"""`TabFeed`: one tab's screen updates, encoded once, for every UI session watching it."""

from __future__ import annotations

from typing import Any

from ...protocol.limits import ASK
from .ui_frames import ScreenFrame, event_body


class TabFeed:
    """One tab's screen updates, encoded once, for every session watching it."""

    def __init__(self, tab: int, terminal: Any) -> None:
        self.tab, self.terminal = tab, terminal
        self.sessions: tuple[Any, ...] = ()

    def on_update(self, update: Any) -> None:  # on the tab's notifier thread: must not block
        screen = ScreenFrame.from_update(self.tab, update)
        for session in self.sessions:
            session.outbox.screen(screen)
        for text in update.clipboard:  # the program copied (OSC 52): the UIs may pass it on
            body = event_body({"kind": "clipboard", "tab": self.tab, "text": text})
            for session in self.sessions:
                session.outbox.event(body)

    def add(self, session: Any) -> None:
        """Start `session` on the tab's screen: its snapshot, then every update. Raises (and
        `session` is not added) when there is no snapshot: changed rows of a screen a UI
        never had draw rows on a blank one."""
        first = not self.sessions
        self.sessions = (*self.sessions, session)  # before the snapshot: no update is missed
        try:
            call = self.terminal.watch(self.on_update) if first else self.terminal.snapshot()
            snapshot = call.get(timeout=ASK)
        except BaseException:
            self.remove(session)  # (the last one out unwatches: after the watch, in mailbox order)
            raise
        session.outbox.screen(ScreenFrame.from_update(self.tab, snapshot))

    def remove(self, session: Any) -> bool:
        """Returns whether the feed is now unused (and the tab unwatched)."""
        self.sessions = tuple(s for s in self.sessions if s is not session)
        if not self.sessions:
            self.terminal.unwatch(self.on_update)  # a tell in effect; a closed tab has nothing to undo
        return not self.sessions
