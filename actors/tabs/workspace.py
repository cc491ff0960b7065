"""The workspace: the registry of tabs by unique, case-insensitive name.

It creates, closes, renames and restarts tabs (each a `TerminalActor`), knows which tab owns
which `TIKI_TAB_TOKEN`, and saves every change to the workspace file in use so the next launch
restores the same tabs.

The tabs live in a `WorkspaceState` (workspace_state) the host creates, not in the actor: when the actor fails
the supervisor starts a new one on the same state and no tab is lost. Terminal actors are
supervised too; one that dies is not restarted behind the user's back (its program would
start over) but marked failed, with the reason, until the user restarts the tab.

A tab of the workspace file whose command cannot start (not on PATH, its directory missing)
is kept all the same: failed, with the reason, until `terminal-restart` starts it, and saved
back with the rest -- the file is the user's, a missing program must not cost them the entry.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pykka

from ...protocol.limits import ASK
from ...protocol.settings import TerminalSettings
from ...terminals.env import new_tab_token
from ..errors import InvalidTabName, SpawnFailed, TabExists, UnknownTab
from ..event_log import EventLog
from ..events import ActorFailed, EventBus, TabExited, TabInfo, TabRestarted, TabsChanged
from ..supervisor import ActorSlot, SupervisedActor, Supervisor
from .agent_watch import AgentConfig
from .terminal import TabSpec, TerminalActor
from .workspace_file import TabEntry, WorkspaceFile, WorkspaceNotSaved, default_role, default_shell
from .workspace_state import NAME_PATTERN, TabHandle, WorkspaceState, _Tab, check_cwd, tab_info  # noqa: F401 - re-exported


class WorkspaceActor(SupervisedActor):
    def __init__(self, *, state: WorkspaceState, bus: EventBus, event_log: EventLog, supervisor: Supervisor,
                 settings: TerminalSettings, socket: str, bin_dir: str | None, save_path: Path | None,
                 agent: AgentConfig | None = None) -> None:
        super().__init__()
        self._state = state
        self._bus = bus
        self._log = event_log
        self._supervisor = supervisor
        self._settings = settings
        self._socket = socket
        self._bin_dir = bin_dir
        if save_path is not None and state.file is None:  # the first actor: what the host just read
            state.file = WorkspaceFile(save_path)
        self._agent = agent  # the agent-state rules, loaded once by the host, for every tab
        self._unsubscribe = lambda: None

    @property
    def _tabs(self) -> list[_Tab]:
        return self._state.tabs

    def on_start(self) -> None:
        self._unsubscribe = self._bus.subscribe(self._on_bus_event)

    def open_initial(self, entries: list[TabEntry]) -> None:
        """Start the tabs a host launches with; one broken entry must not cost the user the
        rest of the workspace, nor itself: a tab that cannot start is kept, failed (see _add),
        and an entry that cannot be a tab at all (a bad or taken name) is saved back as it was."""
        for entry in entries:
            try:
                self._add(entry.name, entry.command, entry.cwd, entry.role, initial=True)
            except (TabExists, InvalidTabName) as exc:
                self._state.kept.append(entry)
                self._log.append("tab_error", tab=entry.name, detail=exc.message)
                self._supervisor.report("workspace-file", WorkspaceNotSaved(
                    f"tab '{entry.name}' of the workspace file was not opened ({exc.message}); "
                    "it stays in the file as it is"))
                self._bus.publish(ActorFailed(f"tab '{entry.name}'", exc.message))

    def on_stop(self) -> None:
        self._unsubscribe()
        for tab in self._tabs:
            tab.slot.release()
            tab.ref.stop(block=False)

    def on_failure(self, exception_type: Any, exception_value: Any, tb: Any) -> None:
        self._unsubscribe()  # the restarted actor subscribes again
        super().on_failure(exception_type, exception_value, tb)

    def _on_bus_event(self, event: object) -> None:
        # Runs on a terminal's thread: hand over to our own mailbox, never block there.
        if isinstance(event, TabExited) or (isinstance(event, ActorFailed) and event.tab_id is not None):
            try:
                self.actor_ref.proxy().tab_exited(event.tab_id, getattr(event, "exit_code", None))
            except pykka.ActorDeadError:
                pass

    def tab_exited(self, tab_id: int, exit_code: int | None) -> None:
        """A tab's child exited, or its terminal actor failed for good: tell the listeners."""
        tab = self._by_id(tab_id)
        if tab is not None:
            if tab.ref.is_alive():
                self._log.append("tab_exited", tab=tab.name, detail=f"exit code {exit_code}")
            self._publish()

    # -- lookups ---------------------------------------------------------------------------

    def _by_id(self, tab_id: int) -> _Tab | None:
        return next((tab for tab in self._tabs if tab.id == tab_id), None)

    def _find(self, name: str) -> _Tab:
        wanted = name.casefold()
        for tab in self._tabs:
            if tab.name.casefold() == wanted:
                return tab
        raise UnknownTab(name, [tab.name for tab in self._tabs])

    def names(self) -> list[str]:
        return [tab.name for tab in self._tabs]

    def get(self, name: str) -> TabHandle:
        tab = self._find(name)
        return TabHandle(tab.id, tab.name, tab.role, list(tab.command), tab.slot.proxy)

    def caller_for_token(self, token: str | None) -> dict[str, Any] | None:
        """The tab a TIKI_TAB_TOKEN belongs to: its name and the names it had before."""
        tab = next((tab for tab in self._tabs if token and tab.token == token), None)
        return {"name": tab.name, "former_names": list(tab.former_names)} if tab else None

    def caller_for_terminals(self, ttys: list[int], token: str | None) -> tuple[dict[str, Any] | None, str | None]:
        """The tab a caller is in, from the kernel's account of it: `ttys` are the device numbers
        of its controlling terminal and its ancestors', nearest first (see peer_identity).
        Returns (caller as in caller_for_token, "pty"), or for a tab whose PTY device cannot be
        known (no TIOCGPTN) its token still counts: (caller, "token"); else (None, None)."""
        devices: dict[int | None, list[_Tab]] = {}
        for tab in self._tabs:
            try:
                devices.setdefault(tab.slot.proxy.tty_device().get(timeout=ASK), []).append(tab)
            except (pykka.ActorDeadError, pykka.Timeout):
                continue
        by_pty = next((devices[tty][0] for tty in ttys if tty in devices), None)
        if by_pty is not None:
            return self.caller_for_token(by_pty.token), "pty"
        by_token = next((t for t in devices.get(None, []) if token and t.token == token), None)
        return (self.caller_for_token(by_token.token), "token") if by_token else (None, None)

    def active(self) -> str | None:
        tab = self._by_id(self._state.active) if self._state.active is not None else None
        return tab.name if tab else None

    def list_tabs(self) -> list[TabInfo]:
        return [tab_info(tab, self._state.active, self._supervisor) for tab in self._tabs]

    def _info(self, tab: _Tab) -> TabInfo:
        return next(info for info in self.list_tabs() if info.id == tab.id)

    # -- changes ---------------------------------------------------------------------------

    def _check_name(self, name: str, ignore: _Tab | None = None) -> None:
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise InvalidTabName(
                f"invalid tab name {name!r}: use 1-40 letters, digits, '_', '-' or '.' (no spaces)"
            )
        for tab in self._tabs:
            if tab is not ignore and tab.name.casefold() == name.casefold():
                raise TabExists(tab.name)

    def _add(self, name: str, command: list[str], cwd: str, role: str, *, initial: bool = False) -> _Tab:
        """Open a tab and save; a tab of the workspace file (`initial`) that cannot start is
        opened failed instead, its reason shown in the tab list and the health report."""
        self._check_name(name)
        spec = TabSpec(tab_id=self._state.next_id, name=name, command=list(command), cwd=cwd, role=role,
                       token=new_tab_token(), socket=self._socket, bin_dir=self._bin_dir, base_env=dict(os.environ))
        error = None
        try:
            slot = self._start_terminal(spec)
        except SpawnFailed as exc:
            if not initial:
                raise
            slot, error = self._start_terminal(spec, spawn=False), exc.message
        tab = _Tab(spec.tab_id, name, list(command), cwd, role, spec.token, slot, start_error=error)
        self._state.next_id += 1
        self._tabs.append(tab)
        if self._state.active is None:
            self._state.active = tab.id
        if error is None:
            self._log.append("tab_new", tab=name, detail=" ".join(command))
        else:
            self._log.append("tab_error", tab=name, detail=error)
            self._supervisor.report(f"tab:{tab.id}", SpawnFailed(
                f"{error}; the tab is kept: fix that, then `tiki terminal-restart {name}`"))
            self._bus.publish(ActorFailed(f"tab '{name}'", error))
        if initial:
            self._publish()
        else:
            self._commit()
        return tab

    def _start_terminal(self, spec: TabSpec, *, spawn: bool = True) -> ActorSlot:
        """The tab's terminal actor, its command started (SpawnFailed if it cannot be); with
        `spawn=False` the actor only, for a tab kept failed."""
        if spawn:
            check_cwd(spec.name, spec.cwd)
        bus, tab_id, name = self._bus, spec.tab_id, spec.name

        def gone(error: str) -> None:  # on a supervisor thread: only publish
            bus.publish(ActorFailed(f"tab '{name}'", error, tab_id=tab_id))

        slot = self._supervisor.actor(
            f"tab:{spec.tab_id}",
            lambda: TerminalActor.start(spec, self._settings, self._bus, supervisor=self._supervisor,
                                        agent=self._agent),
            restart=False, on_give_up=gone,
        )
        try:
            if spawn:
                self._state.start_at_the_limit(lambda: slot.proxy.start_child().get(timeout=ASK))
        except BaseException:
            slot.release()
            self._state.closing.append(slot.ref.stop(block=False))  # (it holds descriptors too)
            self._supervisor.forget(f"tab:{spec.tab_id}")
            raise
        return slot

    def create_tab(self, name: str, command: list[str] | None = None, cwd: str | None = None,
                   role: str | None = None) -> TabInfo:
        command = list(command) if command else default_shell()
        try:  # (the CLI sends an absolute directory; getcwd fails when the host's own was deleted)
            cwd = os.path.abspath(os.path.expanduser(cwd)) if cwd else os.getcwd()
        except FileNotFoundError:
            raise SpawnFailed(f"cannot start tab '{name}': the host's own directory was deleted; "
                              "give the tab's with --cwd DIR") from None
        if role not in (None, "peer", "shell"):
            raise InvalidTabName(f"role must be 'peer' or 'shell', not {role!r}")
        return self._info(self._add(name, command, cwd, role or default_role(command)))

    def close_tab(self, name: str) -> None:
        tab = self._find(name)
        self._state.closed(tab)
        self._supervisor.forget_prefix(f"tab:{tab.id}")
        if self._state.active == tab.id:
            self._state.active = self._tabs[0].id if self._tabs else None
        self._log.append("tab_closed", tab=tab.name)
        self._commit()

    def rename_tab(self, old: str, new: str) -> TabInfo:
        tab = self._find(old)
        self._check_name(new, ignore=tab)
        previous = tab.name
        if previous != new:
            tab.former_names.append(previous)
        tab.name = new
        tab.slot.proxy.set_name(new).get(timeout=ASK)
        self._log.append("tab_renamed", tab=new, detail=f"was {previous}")
        self._commit()
        return self._info(tab)

    def restart_tab(self, name: str) -> TabInfo:
        tab = self._find(name)
        if not tab.ref.is_alive():
            tab.slot.release()
            self._supervisor.forget_prefix(f"tab:{tab.id}")
            spec = TabSpec(tab.id, tab.name, tab.command, tab.cwd, tab.role, tab.token,
                           self._socket, self._bin_dir, dict(os.environ))
            tab.slot = self._start_terminal(spec)
        elif tab.start_error is not None:  # kept failed: its command has never run
            check_cwd(tab.name, tab.cwd)
            tab.slot.proxy.restart().get(timeout=ASK)  # SpawnFailed when it still cannot start
            tab.start_error = None
            self._supervisor.forget(f"tab:{tab.id}")  # healthy now: out of the health report
            self._supervisor.register(f"tab:{tab.id}")
        else:
            tab.slot.proxy.restart().get(timeout=ASK)
        self._log.append("tab_restarted", tab=tab.name)
        self._bus.publish(TabRestarted(tab.id, tab.name))
        self._publish()
        return self._info(tab)

    def set_active(self, name: str) -> None:
        self._state.active = self._find(name).id
        self._publish()

    def _publish(self) -> None:
        self._bus.publish(TabsChanged(self.list_tabs()))

    def _commit(self) -> None:
        """Save the change just made and tell the listeners. The change stands either way; a
        save that failed is an error for the caller too, who must not think it will last."""
        problem = self._save()
        self._publish()
        if problem:
            raise WorkspaceNotSaved(problem)

    def _save(self) -> str | None:
        """Write the tabs, and the entries kept as they were; returns what went wrong, if anything."""
        if self._state.file is None:
            return None
        entries = [TabEntry(t.name, t.command, t.cwd, t.role) for t in self._tabs] + self._state.kept
        return self._state.file.save_reported(entries, self._log, self._supervisor)
