"""The agent panel's lines for bot-chat messages and notes, and what it shows of the host's
`backlog`: the lines it wrote before this UI attached (actors/ipc/ui_backlog), set apart from
what comes now. A run in the backlog is shown as an earlier one, whoever asked it (the UI that
did may be this one, attached again: its requests were a session that has ended)."""

from __future__ import annotations

from typing import Any


def chat_line(event: dict[str, Any]) -> tuple[str, str]:
    """A `chat` event's line and style."""
    mark = "" if event["verified"] else " (unverified)"
    return f"[{event['sender']}] {event['text']}{mark}", "magenta"


def note_line(event: dict[str, Any]) -> tuple[str, str]:
    """A `note` event's line and style."""
    return f"{event['sender']}: {event['text']}", "yellow" if event["level"] == "warning" else "red"


def peer_note_line(event: dict[str, Any]) -> tuple[str, str]:
    return f"{event['name']}: {event['note']}", "yellow"


def show_backlog(panel: Any, events: list[dict[str, Any]]) -> None:
    """Write the backlog's events into `panel` (an AgentPanel) between two rules."""
    if not events:
        return
    panel.write("── before this UI attached ──", "dim")
    for event in events:
        kind = event.get("kind")
        if kind == "chat":
            panel.write(*chat_line(event))
        elif kind == "note":
            panel.write(*note_line(event))
        elif kind == "peer" and event.get("note"):  # (its state then is not its state now: hello has that)
            panel.write(*peer_note_line(event))
        elif kind == "run":
            panel.show_earlier_run(event["run"])
    panel.write("── attached ──", "dim")
