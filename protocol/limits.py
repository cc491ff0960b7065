"""Timeouts and limits that more than one part of tikitaka relies on, in one place.

Tuning values that only one module uses stay beside the code they tune, with a comment.
"""

from __future__ import annotations

ASK = 10.0
"""Seconds any part of the host (or the TUI) waits for an actor's answer before giving up with
an error: nothing waits on an actor forever (DESIGN.md, "Threads and messages")."""

MAX_CHAT_MESSAGE = 64 * 1024
"""Characters in one `bot-chat` message; longer output belongs in a file whose path is sent."""

QUEUE_FOR = 600.0
"""Seconds a text sent to a working agent waits in its tab's queue to be typed when the agent is
idle; after that it is dropped and its sender told so (the CLI waits a little longer)."""

QUEUE_MAX = 16
"""Texts that may wait in one tab's queue; one more is refused, naming how to send at once."""
