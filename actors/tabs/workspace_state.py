"""The workspace's data: its tabs (kept outside the actor, so a restarted workspace actor finds
them), the handle callers get for a tab, and a tab's row in the tab list (`TabInfo`), built from
its terminal actor's status -- or, when that actor is dead, from the supervisor's account.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

import pykka

from ...protocol.limits import ASK
from ..errors import SpawnFailed, SpawnOutOfDescriptors
from ..events import TabInfo
from ..supervisor import ActorSlot, Supervisor
from .workspace_file import TabEntry, WorkspaceFile

NAME_PATTERN = re.compile(r"^[\w.-]{1,40}$")  # \w is Unicode: Korean tab names are fine
# At the descriptor limit, a new tab waits this long for tabs being closed to stop (a program
# that ignores hangups is killed after a grace of 1 s), then this long for their PTYs to close.
CLOSING_WAIT = 3.0
RELEASE_WAIT = 0.5
_T = TypeVar("_T")


def check_cwd(name: str, cwd: str) -> None:
    """A tab starts in a directory: SpawnFailed saying what `cwd` is instead."""
    if not os.path.isdir(cwd):
        what = "not a directory" if os.path.exists(cwd) else "no such directory"
        raise SpawnFailed(f"cannot start tab '{name}': {what}: {cwd}")


@dataclass(frozen=True)
class TabHandle:
    """A tab as callers use it: identity plus a proxy to its terminal actor."""

    id: int
    name: str
    role: str
    command: list[str]
    terminal: Any  # ActorProxy[TerminalActor]


@dataclass
class _Tab:
    id: int
    name: str
    command: list[str]
    cwd: str
    role: str
    token: str
    slot: ActorSlot  # the terminal actor, watched by the supervisor
    former_names: list[str] = field(default_factory=list)
    # Why its command could not start (the tab stays, failed, until `terminal-restart` starts it).
    start_error: str | None = None

    @property
    def ref(self) -> pykka.ActorRef[Any]:
        return self.slot.ref


@dataclass
class WorkspaceState:
    """The tabs, kept outside the actor so that a restarted workspace actor finds them; and what
    must be saved besides them: entries of the file that could not become tabs (an invalid or
    duplicate name) and the file's own record of what the host last read or wrote there."""

    tabs: list[_Tab] = field(default_factory=list)
    next_id: int = 1
    active: int | None = None
    kept: list[TabEntry] = field(default_factory=list)
    file: WorkspaceFile | None = None
    # Tabs closed whose terminal actors may still be stopping (their PTYs not yet given back).
    closing: list[pykka.Future[Any]] = field(default_factory=list)

    def closed(self, tab: _Tab) -> None:
        """`tab` leaves the workspace; its terminal actor stops on its own thread (a program
        that ignores hangups holds it for the kill's grace: the caller does not wait)."""
        self.tabs.remove(tab)
        tab.slot.release()
        self.closing = [stop for stop in self.closing if not _stopped(stop, 0)]
        self.closing.append(tab.ref.stop(block=False))

    def start_at_the_limit(self, start: Callable[[], _T]) -> _T:
        """`start()`, and, when it fails at the descriptor limit while tabs are being closed,
        again once they have given their descriptors back: closing tabs is what the error
        advises, and a tab opened right after must not be refused for the closed one's."""
        try:
            return start()
        except SpawnOutOfDescriptors:
            pending, self.closing = self.closing, []
            if not pending:
                raise
        deadline = time.monotonic() + CLOSING_WAIT
        for stop in pending:
            if not _stopped(stop, max(0.0, deadline - time.monotonic())):
                break
        self.closing += [stop for stop in pending if not _stopped(stop, 0)]  # (for the next start)
        deadline = time.monotonic() + RELEASE_WAIT  # (its reader thread leaves the PTY last)
        while True:
            try:
                return start()
            except SpawnOutOfDescriptors:
                if time.monotonic() >= deadline:
                    raise
            time.sleep(0.02)


def _stopped(stop: pykka.Future[Any], timeout: float) -> bool:
    """Has the actor whose `stop` this is stopped (within `timeout` s)?"""
    try:
        stop.get(timeout=timeout)
    except pykka.Timeout:
        return False
    except Exception:  # noqa: BLE001 - (it died otherwise: stopped all the same)
        return True
    return True


def tab_info(tab: _Tab, active: int | None, supervisor: Supervisor) -> TabInfo:
    status = terminal_status(tab, supervisor)
    return TabInfo(id=tab.id, name=tab.name, command=list(tab.command), cwd=tab.cwd, role=tab.role,
                   running=status["running"], exit_code=status["exit_code"], activity=status["activity"],
                   active=tab.id == active, failed=tab.start_error or status.get("failed"), agent=status.get("agent"),
                   watched=status.get("watched", False), unseen=status.get("unseen"))


def terminal_status(tab: _Tab, supervisor: Supervisor) -> dict[str, Any]:
    try:
        return tab.slot.proxy.status().get(timeout=ASK)  # the slot's proxy: making one costs ~5 ms
    except (pykka.ActorDeadError, pykka.Timeout) as exc:
        # A dead terminal actor is a failed tab until the user restarts it.
        health = supervisor.health().get(f"tab:{tab.id}", {})
        reason = health.get("last_error") or f"its terminal does not answer ({type(exc).__name__})"
        return {"running": False, "exit_code": None, "activity": "idle", "failed": reason}
