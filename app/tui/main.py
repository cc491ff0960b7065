"""The Textual app: the same host as `tiki serve` (same actors, same socket) plus a UI.

The event loop never blocks: actor events arrive as Messages posted by a bus subscriber,
and every ask of an actor runs in a worker thread.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import Footer

from ...actors.coordinator import events as rev
from ...actors.events import ActorFailed, BotChat, PeerNote, PeerStateChanged, ScreenChanged, TabExited, TabsChanged
from . import settings_store
from .agent_panel import AgentPanel
from .dialogs import ConfirmScreen, ConsentScreen, HelpScreen, NewTabScreen, RenameScreen
from .messages import ActorEvent, BackendChecked, PanelNote, TabOpened, TabsListed
from .tab_bar import TabBar
from .terminal_view import TerminalView
from ...protocol.limits import ASK



class TikiApp(App, inherit_bindings=False):
    # No inherited bindings: Textual's ctrl+q (quit, priority) and ctrl+c would be taken
    # from the shells and editors in the tabs. Reserved keys are F-keys and alt+digits only.
    CSS_PATH = "../../assets/tiki.tcss"
    TITLE = "tikitaka"
    COMMAND_PALETTE_BINDING = "f12"
    BINDINGS = [
        Binding("f1", "help", "help", priority=True),
        Binding("f2", "toggle_focus", "panel", priority=True),
        Binding("f3", "new_tab", "new", priority=True),
        Binding("f4", "rename_tab", "rename", priority=True),
        Binding("f5", "restart_tab", "restart", priority=True),
        Binding("f6", "prev_tab", "prev", priority=True),
        Binding("f7", "next_tab", "next", priority=True),
        Binding("f8", "close_tab", "close", priority=True),
        Binding("f9", "cycle_panel", "dock", priority=True),
        Binding("f10", "quit_app", "quit", priority=True),
        *[Binding(f"alt+{n}", f"goto_tab({n})", show=False, priority=True) for n in range(1, 10)],
    ]

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.tabs: list[Any] = []
        self.active_id: int | None = None
        self.ui = settings_store.load()
        self._unsubscribe = lambda: None
        self._exits_noted: set[int] = set()  # tabs whose exit the log already told

    def compose(self) -> ComposeResult:
        # Kept as attributes, not queried: messages still arrive while the app tears its
        # screen down, and a query then finds nothing.
        self.tab_bar = TabBar(id="tab-bar")
        self.view = TerminalView(id="terminal")
        self.panel = AgentPanel(self, id="agent-panel")
        self.main_area = Container(self.view, self.panel, id="main", classes=f"panel-{self.ui['panel']}")
        yield self.tab_bar
        yield self.main_area
        yield Footer()

    def on_mount(self) -> None:
        if self.ui.get("theme") in self.available_themes:
            self.theme = self.ui["theme"]
        self._unsubscribe = self.host.bus.subscribe(lambda event: self.post_message(ActorEvent(event)))
        coordinator = self.host.service("coordinator")
        if coordinator is not None:
            coordinator.set_consent_responder(True)
        self.view.focus()
        self.refresh_tabs(initial=True)
        self.check_backend()
        self.set_interval(1.0, self.refresh_tabs)  # idle/busy badges
        self._on_signals()
        self._ui_ready = True  # from here on, theme changes are the user's: persist them

    def on_unmount(self) -> None:
        self._unsubscribe()

    def _on_signals(self) -> None:
        """SIGTERM / SIGHUP (the terminal went away) end the app cleanly, so `run_tui`'s
        finally stops the host: children killed, socket removed."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                try:
                    loop.add_signal_handler(getattr(signal, name), self.exit)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass  # Windows, or not the main thread (tests)

    def get_system_commands(self, screen: Any) -> Any:
        """The command palette (F12): every reserved action, one entry per tab, then Textual's
        own (theme, keys, screenshot; its Quit asks first like F10)."""
        yield SystemCommand("New tab", "Open a tab: name, command, directory (F3)", self.action_new_tab)
        yield SystemCommand("Rename tab", "Rename the active tab (F4)", self.action_rename_tab)
        yield SystemCommand("Restart tab", "Run the active tab's command again (F5)", self.action_restart_tab)
        yield SystemCommand("Close tab", "Close the active tab (F8)", self.action_close_tab)
        yield SystemCommand("Agent panel: dock", "Right, bottom, hidden (F9)", self.action_cycle_panel)
        yield SystemCommand("Focus agent panel / terminal", "Toggle focus (F2)", self.action_toggle_focus)
        yield SystemCommand("Help", "Keys and modes (F1)", self.action_help)
        for number, tab in enumerate(self.tabs, start=1):
            yield SystemCommand(f"Go to tab {tab.name}", f"tab {number} (Alt+{number})" if number < 10 else "",
                                lambda tab_id=tab.id: self.show_tab(tab_id))
        yield from super().get_system_commands(screen)

    async def action_quit(self) -> None:
        """Textual's quit (palette entry) goes through the same question as F10."""
        self.action_quit_app()

    def watch_theme(self, theme: str) -> None:
        """Persist a theme picked from the command palette."""
        if getattr(self, "_ui_ready", False) and self.ui.get("theme") != theme:
            self.ui["theme"] = theme
            self._save_ui()

    def _save_ui(self) -> None:
        try:
            settings_store.save(self.ui)
        except OSError as exc:
            self.panel.write(f"cannot save UI settings: {exc}", "red")

    # -- state from the actors -----------------------------------------------------------------

    @work(thread=True, group="tabs", exclusive=True)
    def refresh_tabs(self, initial: bool = False) -> None:
        try:
            tabs = self.host.workspace.list_tabs().get(timeout=ASK)
        except Exception:  # noqa: BLE001 - the host is stopping
            return
        self.post_message(TabsListed(tabs))

    def on_tabs_listed(self, message: TabsListed) -> None:
        self._set_tabs(message.tabs)

    def _note_exit(self, tab_id: int, name: str, code: int | None) -> None:
        if tab_id not in self._exits_noted:
            self._exits_noted.add(tab_id)
            self.panel.write(f"tab {name} exited (code {code}); F5 restarts it", "yellow")

    def _set_tabs(self, tabs: list[Any]) -> None:
        self.tabs = list(tabs)
        for tab in self.tabs:  # also covers a child that exited before the UI subscribed
            if tab.running:
                self._exits_noted.discard(tab.id)
            else:
                self._note_exit(tab.id, tab.name, tab.exit_code)
        ids = [tab.id for tab in self.tabs]
        if self.active_id not in ids:
            active = next((t for t in self.tabs if t.active), self.tabs[0] if self.tabs else None)
            if active is not None:
                self.show_tab(active.id)
        self.tab_bar.set_tabs(self.tabs, self.active_id)

    @work(thread=True, group="backend")
    def check_backend(self) -> None:
        reason = None
        try:
            reason = self._backend_problem()
        except Exception as exc:  # noqa: BLE001 - a probe that breaks means "not available"
            reason = f"cannot check the backend: {exc}"
        self.post_message(BackendChecked(reason))  # widgets are touched on the loop only

    def on_backend_checked(self, message: BackendChecked) -> None:
        self.panel.set_ai_available(message.reason)

    def _backend_problem(self) -> str | None:
        """Why AI mode cannot work on this host, or None when a backend may answer: the
        coordinator's own check, so the two never disagree."""
        if self.host.service("coordinator") is None:
            return "this host has no coordinator"
        backend = self.host.service("backend")
        return backend.problem() if hasattr(backend, "problem") else None

    def on_actor_event(self, message: ActorEvent) -> None:
        event = message.event
        panel = self.panel
        if isinstance(event, ScreenChanged):
            if event.tab_id == self.active_id:
                self.view.apply(event.update)
        elif isinstance(event, TabsChanged):
            self._set_tabs(event.tabs)
        elif isinstance(event, TabExited):
            self._note_exit(event.tab_id, event.name, event.exit_code)
        elif isinstance(event, BotChat):
            mark = "" if event.verified else " (unverified)"
            panel.write(f"[{event.sender}] {event.text}{mark}", "magenta")
        elif isinstance(event, rev.ConsentNeeded):
            self.ask_consent(event)
        elif isinstance(event, rev.RunEvent):
            panel.show_run_event(event)
        elif isinstance(event, PeerStateChanged):
            self.tab_bar.set_handshake(event.name, event.state)
            if event.note:
                panel.write(f"{event.name}: {event.note}", "yellow")
        elif isinstance(event, PeerNote):
            panel.write(f"{event.sender}: {event.note}", "yellow")
        elif isinstance(event, ActorFailed):
            panel.write(f"{event.what}: {event.error}", "yellow")

    def on_panel_note(self, message: PanelNote) -> None:
        self.panel.write(message.text, message.style)

    def ask_consent(self, event: Any) -> None:
        coordinator = self.host.service("coordinator")

        def answered(decision: str | None) -> None:
            coordinator.answer_consent(event.request_id, decision or "deny")

        self.push_screen(ConsentScreen(event.tab, event.tool, event.args), answered)

    # -- tabs --------------------------------------------------------------------------------

    def _active(self) -> Any:
        return next((t for t in self.tabs if t.id == self.active_id), None)

    def active_terminal(self) -> Any:
        view = self.view
        return view.terminal

    def active_app_cursor(self) -> bool:
        return self.view.app_cursor

    def show_tab(self, tab_id: int) -> None:
        tab = next((t for t in self.tabs if t.id == tab_id), None)
        if tab is None:
            return
        self.active_id = tab_id
        self.tab_bar.set_tabs(self.tabs, tab_id)
        self._open(tab.name, tab_id)

    @work(thread=True, group="switch", exclusive=True)
    def _open(self, name: str, tab_id: int) -> None:
        try:
            handle = self.host.workspace.get(name).get(timeout=ASK)
            self.host.workspace.set_active(name)
        except Exception as exc:  # noqa: BLE001
            self.post_message(PanelNote(f"cannot show {name}: {exc}", "red"))
            return
        self.post_message(TabOpened(tab_id, handle.terminal))

    def on_tab_opened(self, message: TabOpened) -> None:
        if self.active_id == message.tab_id:  # a later switch may have overtaken this one
            self.view.show(message.tab_id, message.terminal)

    def _step(self, delta: int) -> None:
        if not self.tabs:
            return
        ids = [t.id for t in self.tabs]
        index = ids.index(self.active_id) if self.active_id in ids else 0
        self.show_tab(ids[(index + delta) % len(ids)])

    def action_next_tab(self) -> None:
        self._step(1)

    def action_prev_tab(self) -> None:
        self._step(-1)

    def action_goto_tab(self, number: int) -> None:
        if 0 < number <= len(self.tabs):
            self.show_tab(self.tabs[number - 1].id)

    def action_toggle_focus(self) -> None:
        view = self.view
        if view.has_focus:
            if self.ui["panel"] == "hidden":
                self.action_cycle_panel()
            self.panel.query_one("#agent-input").focus()
        else:
            view.focus()

    def action_cycle_panel(self) -> None:
        order = settings_store.PANELS
        self.ui["panel"] = order[(order.index(self.ui["panel"]) + 1) % len(order)]
        self.main_area.set_classes(f"panel-{self.ui['panel']}")
        self._save_ui()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def _workspace_call(self, what: str, call: Any) -> None:
        def run() -> None:
            try:
                call().get(timeout=ASK)
            except Exception as exc:  # noqa: BLE001 - TikiError messages are for the user
                self.post_message(PanelNote(f"{what}: {getattr(exc, 'message', exc)}", "red"))

        self.run_worker(run, thread=True, group="workspace")

    def action_new_tab(self) -> None:
        def created(spec: dict[str, Any] | None) -> None:
            if spec:
                self._workspace_call("new tab", lambda: self.host.workspace.create_tab(
                    spec["name"], spec["command"], spec["cwd"]))

        self.push_screen(NewTabScreen(), created)

    def action_rename_tab(self) -> None:
        tab = self._active()
        if tab is None:
            return

        def renamed(new: str | None) -> None:
            if new and new != tab.name:
                self._workspace_call("rename", lambda: self.host.workspace.rename_tab(tab.name, new))

        self.push_screen(RenameScreen(tab.name), renamed)

    def action_restart_tab(self) -> None:
        tab = self._active()
        if tab is not None:
            self._workspace_call("restart", lambda: self.host.workspace.restart_tab(tab.name))
            self.show_tab(tab.id)

    def action_close_tab(self) -> None:
        tab = self._active()
        if tab is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._workspace_call("close", lambda: self.host.workspace.close_tab(tab.name))

        self.push_screen(ConfirmScreen(f"Close tab '{tab.name}' and kill its program?"), confirmed)

    def action_quit_app(self) -> None:
        running = [t.name for t in self.tabs if t.running]
        if not running:
            self.exit()
            return
        question = f"Quit tikitaka? {len(running)} tab(s) still running: {', '.join(running)}"
        self.push_screen(ConfirmScreen(question), lambda yes: self.exit() if yes else None)
