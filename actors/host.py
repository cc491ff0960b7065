"""The host: the actor system behind both `tiki` (with the TUI) and `tiki serve`.

It loads settings and the workspace, starts the event log, the workspace actor (and through it
a terminal actor per tab), the coordinator, the bot and the IPC server, and tears all of
it down on every exit path: `stop()` stops every pykka actor and removes the socket.

Every actor and long-lived thread is owned by one `Supervisor` (`host.supervisor`): a failure
is logged once, the piece restarted, and `health()` is reported by `tiki status`. Services are
looked up through the host each time (`host.workspace`, `host.service(name)`) rather than
kept, so a restarted actor is the one callers reach.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pykka

from ..protocol import ops, paths
from ..protocol.settings import Settings
from . import host_record
from .coordinator import ops as coordinator
from .errors import TikiError
from .event_log import EventLog
from .events import EventBus, TabsChanged
from .host_setup import HostError, host_bin_dir, load_settings, refuse_shared, resolve_workspace
from .ipc import endpoint, ui_session
from .ipc.handlers import host as host_handlers
from .ipc.handlers import tabs as tab_handlers
from .ipc.server import Handler, IpcServerActor
from .ipc.ui_hub import UiHub
from .peers import wiring as peers
from .supervisor import ActorSlot, Supervisor
from .tabs.agent_watch import AgentConfig
from .tabs.workspace import WorkspaceActor, WorkspaceState


def handler_table() -> dict[str, tuple[ops.Op, Handler]]:
    """Every op of `protocol.ops` with its one handler. Raises at import time when an op has
    no handler or two, so a wiring mistake can never silently drop a group of commands."""
    table: dict[str, tuple[ops.Op, Handler]] = {}
    for module in (tab_handlers, host_handlers, coordinator, ui_session):
        for op, handler in module.HANDLERS.items():
            if op.name in table:
                raise RuntimeError(f"op {op.name} has two handlers ({module.__name__})")
            table[op.name] = (op, handler)
    missing = sorted(set(ops.OPS) - set(table))
    if missing:
        raise RuntimeError(f"ops without a handler: {', '.join(missing)}")
    return table


HANDLERS = handler_table()


@dataclass
class HostOptions:
    workspace: Path | None = None
    """`--workspace FILE`; else ./tiki.toml, else the default workspace in the config dir."""

    socket: Path | None = None
    """Socket path; default from TIKI_SOCKET or the per-user runtime directory."""

    settings: Settings | None = None
    """Settings to use instead of reading config.toml (tests, embedding)."""

    coordinator: bool = True
    """Run the coordinator (its ops answer "this host has no coordinator" otherwise)."""

    backend_factory: Any = None
    """Builds the coordinator's LLM backend; default: the configured backend (tests pass a fake's)."""

    peers: bool = True
    """Run the bot: peer handshakes and the routing of bot-chat messages to the coordinator."""


class Host:
    def __init__(self, options: HostOptions | None = None) -> None:
        self.options = options or HostOptions()
        self.settings = self.options.settings or load_settings()
        self.socket_path = self.options.socket or paths.socket_path()
        self.bus = EventBus()
        self.event_log = EventLog(paths.event_log_file(self.socket_path))
        self.supervisor = Supervisor(self.event_log)
        # A write that fails (disk full, a file where the directory should be) is a failure of
        # the event log service, reported like any other; callers carry on.
        self.event_log.on_error = lambda exc: self.supervisor.report("event_log", exc)
        self.supervisor.register("event_log")
        self._workspace: ActorSlot | None = None
        self.workspace_path: Path | None = None
        self.start_note: str | None = None  # how the workspace was chosen, when the user should hear it
        self._noted = False  # host_record written: removed again on a clean stop
        self._active: str | None = None  # the tab shown last, as the record says
        self._record_lock = threading.Lock()  # a stop's removal of the record, against rewrites
        self._services: dict[str, Any] = {}
        self._ipc: pykka.ActorRef[IpcServerActor] | None = None
        self._endpoint: tuple[int, int, int] | None = None  # the socket file this host made (endpoint.release)
        self._stopped = threading.Event()
        self._stop_lock = threading.Lock()
        self._started = False

    # -- services --------------------------------------------------------------------------

    def add_service(self, name: str, service: Any) -> None:
        """A service other parts look up by name: a plain object, or an `ActorSlot` whose
        current proxy is handed out (so a restarted actor is found)."""
        self._services[name] = service

    def service(self, name: str) -> Any | None:
        service = self._services.get(name)
        return service.proxy if isinstance(service, ActorSlot) else service

    @property
    def workspace(self) -> Any:
        """The workspace actor's proxy (None before start)."""
        return self._workspace.proxy if self._workspace is not None else None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Start everything; on any failure, stop what was started and raise HostError."""
        self._started = True
        try:
            self._start()
        except BaseException as exc:
            self.stop()
            if isinstance(exc, HostError):
                raise
            from .ipc.endpoint_errors import EndpointError

            if isinstance(exc, EndpointError):
                raise HostError(str(exc)) from None
            raise

    def _start(self) -> None:
        from .ipc.endpoint import make_directory
        from .ipc.endpoint_claim import claimed

        # Nothing at the path is looked at before the turn is this host's: a starting host's
        # socket, bound but not yet listening, looks like a dead host's leftover.
        make_directory(self.socket_path)  # (where the turn is taken)
        with claimed(self.socket_path):  # hosts started at once: only the one that gets the socket starts tabs
            self._start_claimed()

    def _start_claimed(self) -> None:
        from .ipc.endpoint import prepare
        from .ipc.endpoint_lost import refuse_beside

        prepare(self.socket_path)  # refuse early, before any tab is spawned
        refuse_beside(self.socket_path)  # (a host that runs on with its socket file removed)
        try:
            paths.ready_state_dir()  # the event log and transcripts go there: refuse now, not run without
        except paths.StateDirError as exc:
            raise HostError(str(exc)) from None
        predecessor = host_record.left_behind(self.socket_path)
        entries, self.workspace_path, self.start_note = resolve_workspace(
            self.options.workspace, predecessor, self.socket_path)
        refuse_shared(self.workspace_path, self.socket_path)
        self.agent_config = self._agent_rules()
        state = WorkspaceState()  # outlives a workspace actor that fails and is restarted
        self._workspace = self.supervisor.actor("workspace", lambda: WorkspaceActor.start(
            state=state,
            bus=self.bus,
            event_log=self.event_log,
            supervisor=self.supervisor,
            settings=self.settings.terminal,
            socket=str(self.socket_path),
            bin_dir=host_bin_dir(),
            save_path=self.workspace_path,
            agent=self.agent_config,
        ))
        self.workspace.open_initial(entries).get(timeout=60)
        self._show_again(predecessor)
        self.bus.subscribe(self._follow_active)
        if self.start_note:
            self.event_log.append("workspace_resolved", detail=self.start_note)
        if self.options.coordinator:
            coordinator.start(self, self.options.backend_factory)
        if self.options.peers:
            peers.start(self)  # after the coordinator: it wires the first-contact header into it
        hub = UiHub(self)  # attached UIs (ui.attach sessions)
        self.add_service("ui", hub)
        hub.start()
        self._ipc = IpcServerActor.start(self.socket_path, HANDLERS, self, bound=self._note_record)
        self._endpoint = endpoint.identity(self.socket_path)
        self.event_log.append("host_started", detail=f"pid {os.getpid()}, socket {self.socket_path}")

    def _show_again(self, predecessor: host_record.Predecessor | None) -> None:
        """After a crash, the tab the crashed host showed last is shown first again."""
        if predecessor is not None and predecessor.active and predecessor.workspace == self.workspace_path:
            try:
                self.workspace.set_active(predecessor.active).get(timeout=10)
                self._active = predecessor.active
            except TikiError:
                pass  # (not in the workspace restored: the first tab, as usual)

    def _follow_active(self, event: object) -> None:
        """Keep the record's `active` the tab shown last (a UI switched tabs: TabsChanged)."""
        if not isinstance(event, TabsChanged):
            return
        active = next((tab.name for tab in event.tabs if tab.active), None)
        with self._record_lock:
            if active != self._active and self._noted and not self.supervisor.stopping:
                self._active = active
                self._note_record()

    def _note_record(self) -> None:
        """The host's record (host_record), written once the socket is this host's -- a host
        started at the same moment that lost the race for it must not write over the winner's
        record (and remove it as it stops) -- and before any client is answered: a client asks
        the record whether the host is stopped, and one answered before it was written (a host
        stopped right after its first answer) waited out its whole question instead (CI)."""
        if self.workspace_path is None:
            return  # (resolved before the socket is: not so only in a host that never started)
        try:  # until a clean stop (see host_record); without it the host runs on, unable to be restored
            host_record.note(self.socket_path, self.workspace_path, self._active)
            self._noted = True
        except OSError as exc:
            self.supervisor.report("host_record", exc)

    def _agent_rules(self) -> AgentConfig:
        """The agent-state rules, loaded once for every tab. A broken user file is left out (its
        CLI keeps the bundled rules) and reported: `tiki status` and `tiki explain` show it."""
        from ..terminals.agent_state_model import AgentRulesError
        from ..terminals.agent_state_rules import load_rulebook

        try:
            rulebook = load_rulebook(strict=False)
        except AgentRulesError as exc:  # the bundled rules themselves: an installation problem
            raise HostError(f"agent-state rules: {exc}") from None
        for error in rulebook.errors:
            self.supervisor.report("agent_rules", AgentRulesError(error))
        return AgentConfig(rulebook, self.settings.notify)

    def keep_record(self) -> None:
        """The record of this host made again if it was removed (the state directory wiped, say;
        looked at every second or so): without it the command line could not tell that this host
        runs (host_record.running), nor the host after a crash what it served."""
        with self._record_lock:
            if not self._noted or self.workspace_path is None or self.supervisor.stopping:
                return  # (a host that stops removes its record: never made again then)
            if paths.host_record(self.socket_path).exists():
                return
            try:
                host_record.note(self.socket_path, self.workspace_path, self._active)
                self.event_log.append("record_remade", detail=str(paths.host_record(self.socket_path)))
            except OSError as exc:
                self.supervisor.report("host_record", exc)

    def request_stop(self) -> None:
        """Ask the host to stop from any thread (e.g. `tiki shutdown`); returns at once."""
        threading.Thread(target=self.stop, name="tiki-stop", daemon=True).start()

    def stop(self) -> None:
        """Stop every actor and remove the socket. Idempotent, safe from any thread."""
        with self._stop_lock:
            if self._stopped.is_set():
                return
            self.supervisor.stop()  # nothing is restarted from here on
            hub = self._services.get("ui")
            if hub is not None:
                hub.stop("the host is stopping")  # UIs hear it before their connection goes
            # The record goes before the socket: a host started once the socket is gone must
            # find no record of this one, which would otherwise read as a running host whose
            # socket was removed (and refuse to start beside it, this one being slow to stop).
            with self._record_lock:  # (a tab shown meanwhile must not write it back: `_follow_active`)
                if self._noted:  # a host started from now on follows a clean stop, not a crash
                    host_record.clear(self.socket_path)
                    self._noted = False
            if self._ipc is not None:
                try:
                    self._ipc.stop(block=True, timeout=5)
                    self._endpoint = None  # (its own stop removed the socket: nothing left to remove)
                except pykka.Timeout:
                    pass  # removed below, once the tabs have stopped
            # Every actor at once: a tab ends its whole session with a grace period, and tabs
            # stopped one after another would add those graces up.
            stopping = [ref.stop(block=False) for ref in pykka.ActorRegistry.get_all()]
            for future in stopping:
                try:
                    future.get(timeout=10)
                except (pykka.Timeout, pykka.ActorDeadError):
                    pass
            if self._ipc is not None and self._endpoint is not None:  # (its own stop timed out; never another host's)
                server = self._services.get("ipc.connections")  # (it may have made the socket again)
                endpoint.release(self.socket_path, getattr(server, "endpoint", self._endpoint))
            if self._started:
                self.event_log.append("host_stopped")
            self._stopped.set()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()
