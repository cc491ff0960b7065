"""What a coordinator session is made of: the request of one run, and the link that outlives
a restarted coordinator actor (the conversation, the peer wiring, the built backend)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .context import Conversation
from .loop import system_prompt
from .tools import SendFilter


@dataclass
class RunRequest:
    run_id: str
    prompt: str
    source: str
    allow_shell: bool
    session: int = 0


@dataclass
class CoordinatorLink:
    """What outlives one coordinator actor: the conversation and how it is wired to peers."""

    conversation: Conversation = field(default_factory=lambda: Conversation(system_prompt()))
    session: int = 0  # bumped by reset: a cancelled run must not append to the new session
    send_filter: SendFilter = lambda tab, role, text: text
    reset_hooks: list[Callable[[], None]] = field(default_factory=list)
    backend: Any = None  # built once; a loaded model survives a restart of the actor
    note: str = ""  # what the next request must know about a run that did not finish
