"""The terminal actor's agent-state side: what its detector reads, and what callers reach.

Mixed into `TerminalActor`. The detector (`agent_watch.TabAgent`) reads the screen's cached
rows, cursor, title, modes and the program's notifications under the actor's lock, plus the
start and last-output times, the exit status and the command in the terminal's foreground
(`terminals.foreground`: `claude` typed into a shell tab is Claude). Callers get the
`TabAgent` (its `view`, `wait_for`) and the tab's `Outbox` (sends that wait for idle) as plain
thread-safe objects, so waiting for a state never occupies the actor's mailbox.
"""

from __future__ import annotations

import threading
from typing import Any

from ...terminals.agent_state import ScreenFacts
from ...terminals.foreground import ForegroundCommand
from .agent_watch import AgentConfig, TabAgent
from .outbox import Outbox
from .terminal_io import ECHO_WINDOW


class TerminalAgent:
    _lock: threading.Lock
    _screen: Any
    _running: bool
    _exit_code: int | None
    _last_own_output: float
    spec: Any

    def _init_agent(self, config: AgentConfig) -> None:
        self._started_at: float | None = None  # when the current child was spawned (monotonic)
        self._foreground: ForegroundCommand | None = None
        self._agent = TabAgent(config, self._bus, lambda: (self.spec.tab_id, self.spec.name),  # type: ignore[attr-defined]
                               self._agent_facts, lambda: bool(self._watchers))  # type: ignore[attr-defined]
        self._outbox = Outbox(self, self._agent, self._supervisor)  # type: ignore[attr-defined]

    def agent(self) -> TabAgent:
        """The tab's agent state: read `view`, or `wait_for` a state (thread-safe)."""
        return self._agent

    def outbox(self) -> Outbox:
        """Where sends to this tab wait their turn (see `outbox`)."""
        return self._outbox

    def _input_given(self, at: float) -> None:
        """Input went to the child at `at`: what it starts or ends (Enter runs a command, ctrl+d
        ends the agent) shows in the terminal's foreground group, and what it prints meanwhile
        is taken for its echo (terminal_io.ECHO_WINDOW) -- so the detector looks again, at the
        group too, once that window has closed. Else a command that prints nothing (`sleep`)
        read idle until it ended, and an agent quit in a shell tab stayed the agent."""
        due = at + ECHO_WINDOW
        if self._foreground is not None:
            self._foreground.look_again_at(due)
        self._agent.look_again_at(due)

    def visible_rows(self) -> list[str]:
        with self._drawn() as screen:  # type: ignore[attr-defined]
            return screen.visible_rows()  # type: ignore[no-any-return]

    def _agent_facts(self, now: float) -> ScreenFacts:
        """What the detector looks at, on its own thread (see agent_watch): the screen as drawn,
        not half a redraw (the state of a half-drawn screen is nobody's)."""
        with self._drawn() as screen:  # type: ignore[attr-defined]
            rows, cursor, title = screen.visible_rows(), screen.cursor, screen.title
            alt_screen, notes = screen.alt_screen, screen.agent.take_notifications()
            last_output = self._last_own_output or None  # (a key's echo is not the program at work)
        running, foreground = self._running, self._foreground
        live = foreground.get(now) if running and foreground is not None else []
        # (A program that ended is not running, reaped or not: `sh -c 'exec claude'` read as a
        # shell between Claude's end and the reaper's turn.)
        over = not running or (foreground is not None and foreground.ended)
        return ScreenFacts(rows, cursor, title, alt_screen, notes, now, last_output, self._started_at,
                           over and self._started_at is not None, self._exit_code,
                           live or self.spec.command,
                           foreground.leader_in_front if live and foreground is not None else None,
                           foreground.reading if live and foreground is not None else None,
                           bool(live) and foreground is not None and foreground.listening)
