"""Every custom Textual Message of the TUI, in one place.

The session's reader thread (app/ui_client.py) and the raw input thread (driver.py) never
touch widgets: they post one of these (`post_message` is thread-safe).
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class HostEvent(Message):
    """An event from the host's session: a screen frame, the tab list, bot-chat, coordinator
    progress, a consent question, a peer's state, a note (see protocol/README.md)."""

    def __init__(self, event: dict[str, Any]) -> None:
        super().__init__()
        self.event = event


class Detached(Message):
    """The session ended: the host stopped, or the connection to it broke."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class PrefixKey(Message):
    """The key typed after the prefix (raw input), for the prefix command table."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


class PrefixPending(Message):
    """The prefix was typed (raw input) and waits for its key, or no longer does."""

    def __init__(self, pending: bool) -> None:
        super().__init__()
        self.pending = pending


class TypedToTab(Message):
    """Raw input went to the tab: a view scrolled back returns to the live screen, and a
    selection's highlight goes."""


class PanelNote(Message):
    """A line for the agent panel's log from the UI itself (errors, notices)."""

    def __init__(self, text: str, style: str = "") -> None:
        super().__init__()
        self.text = text
        self.style = style
