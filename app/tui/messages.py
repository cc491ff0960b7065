"""Every custom Textual Message of the TUI, in one place.

Actors never touch widgets: the app's bus subscriber wraps each actor event in one of these
and calls `app.post_message`, which is thread-safe.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class ActorEvent(Message):
    """An event from the host's bus (tabs, screens, bot-chat, coordinator progress, peers)."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class SnapshotReady(Message):
    """A full screen snapshot, fetched off the event loop, for the tab being shown."""

    def __init__(self, tab_id: int, update: Any) -> None:
        super().__init__()
        self.tab_id = tab_id
        self.update = update


class HistoryReady(Message):
    """Scrollback rows fetched for the terminal view's scroll position."""

    def __init__(self, tab_id: int, offset: int, rows: list[Any], history: int, asked: int) -> None:
        super().__init__()
        self.asked = asked  # the scroll target this answers (older answers are dropped)
        self.tab_id = tab_id
        self.offset = offset
        self.rows = rows
        self.history = history


class TabsListed(Message):
    def __init__(self, tabs: list[Any]) -> None:
        super().__init__()
        self.tabs = tabs


class PanelNote(Message):
    """A line for the agent panel's log from the UI itself (errors, notices)."""

    def __init__(self, text: str, style: str = "") -> None:
        super().__init__()
        self.text = text
        self.style = style


class BackendChecked(Message):
    """The coordinator's backend was probed: `reason` says why AI mode cannot work, or None."""

    def __init__(self, reason: str | None) -> None:
        super().__init__()
        self.reason = reason


class TabOpened(Message):
    """The workspace handed over the terminal proxy of the tab the user switched to."""

    def __init__(self, tab_id: int, terminal: Any) -> None:
        super().__init__()
        self.tab_id = tab_id
        self.terminal = terminal
