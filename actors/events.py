"""Events the actors publish to whoever subscribed (the TUI, `tiki ask`, tests).

Subscribers are plain callables invoked on the publishing actor's thread; they must not block.
The TUI's subscriber wraps each event in a Textual Message and calls `app.post_message`
(thread-safe), which is the only way actor state reaches the UI.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class TabInfo:
    """What the workspace knows about one tab (the `terminal-list --json` row, plus `id`)."""

    id: int
    name: str
    command: list[str]
    cwd: str
    role: str  # "peer" | "shell"
    running: bool
    exit_code: int | None
    activity: str  # "idle" | "busy" (output within the last 1.5 s)
    active: bool
    failed: str | None = None  # why the tab's terminal failed (restart the tab to recover)
    agent: dict[str, Any] | None = None  # {"kind", "state", "since", "reason"} (see AgentStateChanged)
    watched: bool = False  # a UI shows it (its screen frames are built), when the list was made
    unseen: str | None = None  # "done" | "bell": news no UI has shown yet (agent_watch.TabAgent.unseen)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "command": list(self.command),
            "cwd": self.cwd,
            "role": self.role,
            "running": self.running,
            "exit_code": self.exit_code,
            "activity": self.activity,
            "active": self.active,
            "failed": self.failed,
            "watched": self.watched,
            "unseen": self.unseen,
            "agent": dict(self.agent) if self.agent else
            {"kind": "shell", "state": "unknown", "since": None, "reason": "not evaluated"},
        }


@dataclass(frozen=True)
class TabsChanged:
    """A tab was created, closed, renamed, restarted, exited, or became active/idle/busy."""

    tabs: list[TabInfo]


@dataclass(frozen=True)
class ScreenChanged:
    """A tab's screen changed; coalesced to at most ~60 per second per tab. It carries no rows:
    UIs get those through `TerminalActor.watch` (see actors/ipc/ui_feeds.py); `update` is
    always None (kept for the field's old users)."""

    tab_id: int
    name: str
    update: Any


@dataclass(frozen=True)
class TabExited:
    tab_id: int
    name: str
    exit_code: int | None


@dataclass(frozen=True)
class TabRestarted:
    """A tab's program was started again (`terminal-restart`): a fresh process that knows nothing
    of what the old one was told (a peer's handshake starts over)."""

    tab_id: int
    name: str


@dataclass(frozen=True)
class AgentStateChanged:
    """A tab's agent state changed (terminals/agent_state: starting, working, waiting, idle,
    exited, unknown); `since` is wall-clock time, `rule` and `evidence` what `tiki explain` says."""

    tab_id: int
    name: str
    kind: str  # whose rules decided: claude, codex, gemini, aider, shell, ...
    state: str
    previous: str
    since: float
    rule: str
    evidence: str


@dataclass(frozen=True)
class AgentNotice:
    """Something the user should hear about a tab: it asks for the user (`waiting`), its agent
    finished working (`done`), its program printed a notification of its own (`program`,
    OSC 9/99/777) or rang the bell (`bell`, BEL). The TUI turns these into badges, toasts and
    outer-terminal notifications ([notify] in config.toml)."""

    tab_id: int
    name: str
    reason: str  # waiting | done | program | bell
    text: str
    time: float = field(default_factory=time.time)


@dataclass(frozen=True)
class ActorFailed:
    """Something the user should know failed for good (a tab's terminal, a workspace entry
    that could not start); the supervisor has logged it."""

    what: str
    error: str
    tab_id: int | None = None


@dataclass(frozen=True)
class BotChat:
    """A `tiki bot-chat` message the host accepted."""

    sender: str
    text: str
    verified: bool
    time: float = field(default_factory=time.time)


@dataclass(frozen=True)
class PeerStateChanged:
    """A peer tab's handshake state changed (for the TUI's tab badge)."""

    name: str
    state: str
    note: str = ""


@dataclass(frozen=True)
class PeerNote:
    """Something the user should see about a peer message (rate cap, not routed)."""

    sender: str
    text: str
    note: str


class EventBus:
    """Thread-safe fan-out of events to subscribers. A failing subscriber is dropped from
    nothing and hurts nobody: its exception is swallowed so one bad UI hook cannot kill an actor."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Callable[[object], None]] = []

    def subscribe(self, callback: Callable[[object], None]) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: object) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:  # noqa: BLE001 - a subscriber's bug must not kill the publisher
                pass
