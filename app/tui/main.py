"""The Textual app: a client of the host. Everything it shows comes over its session
(app/ui_client.py, protocol/README.md); everything it does goes back up the same way. Quitting
it only detaches: the host and the tabs run on.

Keys belong to the program in the tab. tikitaka's own commands follow the prefix key
(keymap.py); the raw driver (driver.py) finds the prefix in the terminal's bytes, and key
events (Pilot, dialogs, the agent panel) are checked here, so both reach the same table.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Container

from . import settings_store
from .agent_panel import AgentPanel
from .clipboard import Clipboard
from .commands import Commands
from .dialogs import ConsentScreen
from .frame_inbox import FrameInbox
from .host_events import HostEvents
from .keymap import command_for, prefix_bytes, prefix_label
from .keys import key_to_bytes
from .main_screen import MainScreen
from .messages import Detached, PrefixKey, PrefixPending, TypedToTab
from .notify import Notifier
from .outer_cells import OuterCells, TrimmedDisplay
from .tab_bar import TabBar
from .terminal_cursor import TerminalCursor
from .terminal_view import TerminalView
from .toast_rack import keep_shown

keep_shown()  # (toasts cost their own rows, not the screen's)

# Seconds a prefix command waits for the keys typed before it to reach their widget (each is a
# few microseconds of work: only a widget stuck elsewhere makes it wait this long).
KEYS_BEFORE_WAIT = 0.5


class TikiApp(TrimmedDisplay, TerminalCursor, Clipboard, Commands, HostEvents, App, inherit_bindings=False):
    # No bindings at all: every key belongs to the program in the tab, except the prefix.
    CSS_PATH = "../../assets/tiki.tcss"
    TITLE = "tikitaka"
    COMMAND_PALETTE_BINDING = ""

    def __init__(self, client: Any, prefix: str = "ctrl+\\", notices: tuple[str, ...] = (), first: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._first = first  # the tab to show first (`tiki attach --tab`), else the host's active one
        self._notices = notices  # for the panel, once: what starting or finding the host had to say
        self.client = client
        self.prefix_name = prefix
        self.prefix_bytes = prefix_bytes(prefix)
        self.tabs: list[Any] = []
        self.active_id: int | None = None
        self.shown_before: int | None = None  # the tab shown before the active one (prefix l), this UI's own
        self.has_coordinator = bool(client.hello.get("coordinator"))
        self.ui = settings_store.load()
        self._prefix_pending = False  # the prefix came as a key event; its command key is next
        self._exits_noted: set[int] = set()
        self._consents: dict[str, ConsentScreen] = {}
        self.detached_reason: str | None = None
        self._wanted: int | None = None  # a tab to show as soon as the tab list has it
        self.frames = FrameInbox()  # screen frames from the host not drawn yet, one per tab
        self.notifier = Notifier(self)
        self.outer_cells = OuterCells()  # what the terminal shows: Textual's updates write what differs

    def get_default_screen(self) -> MainScreen:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        # Kept as attributes, not queried: messages still arrive while the app tears its
        # screen down, and a query then finds nothing.
        self.tab_bar = TabBar(prefix_label(self.prefix_name), id="tab-bar")
        self.view = TerminalView(id="terminal")
        self.view.client = self.client
        self.panel = AgentPanel(self, id="agent-panel")
        self.main_area = Container(self.view, self.panel, id="main", classes=f"panel-{self.ui['panel']}")
        yield self.tab_bar
        yield self.main_area

    def on_mount(self) -> None:
        self._main_screen = self.screen
        if self.ui.get("theme") in self.available_themes:
            self.theme = self.ui["theme"]
        hello = self.client.hello
        self.client.start(self._from_host, lambda reason: self.post_message(Detached(reason)))
        self.apply_panel()
        self.view.focus()
        self.notifier.start(hello)
        self._set_tabs(hello.get("tabs", []), prefer=self._first or hello.get("active"))
        for name, state in (hello.get("peers") or {}).items():
            self.tab_bar.set_handshake(name, state.get("handshake", "not_connected"))
        for question in hello.get("consents", []):
            self._ask_consent(question)
        for notice in self._notices:
            self.panel.write(notice, "yellow")
        for note in hello.get("notes") or ():  # old spellings in this UI's config.toml
            self.panel.write(note, "yellow")
        self._ui_ready = True  # from here on, theme changes are the user's: persist them
        self._on_signals()
        self.app_resume_signal.subscribe(self, self.action_redraw)

    def on_resize(self, event: events.Resize) -> None:
        # The terminal may have cut what it showed (xterm cuts its rows when narrowed), also
        # when it is back at the size the UI drew at before it could draw the narrow one --
        # which Textual takes as no change at all: everything is drawn again, once.
        self.action_redraw()
        self.apply_panel(event.size.width, event.size.height)

    def _on_signals(self) -> None:
        """SIGTERM / SIGHUP (the terminal went away) / SIGQUIT end the app cleanly: a detach."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGHUP", "SIGQUIT"):
            if hasattr(signal, name):
                try:
                    loop.add_signal_handler(getattr(signal, name), self.exit)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass  # Windows, or not the main thread (tests)

    # -- keys --------------------------------------------------------------------------------

    def forwarding(self) -> bool:
        """Raw bytes go to the tab now (asked by the driver's thread: reads only)."""
        try:
            # (Focused on nothing: a mouse report outside every widget did that, and the view
            # takes the focus back at once -- what is typed meanwhile is the tab's too.)
            return (self.screen is self._main_screen and self.screen.focused in (self.view, None)
                    and not self._prefix_pending
                    and self.view.tab_id is not None and not self.view.copy.active)
        except Exception:  # noqa: BLE001 - mid-teardown: nothing goes anywhere
            return False

    def forward_input(self, data: bytes) -> None:
        """Raw bytes for the tab shown (on the driver's thread)."""
        tab = self.view.tab_id
        if tab is not None:
            self.client.input(tab, data)
            if self.view.scroll_offset_rows or self.view.selection is not None:
                self.post_message(TypedToTab())

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._prefix_pending:
                self._prefix_pending = False
                self.tab_bar.set_prefix(False)
                if key_to_bytes(event.key, event.character) == self.prefix_bytes:
                    self.view.write(self.prefix_bytes)
                else:  # (at once: the keys after it wait behind it in this queue, as typed)
                    await self.run_prefix_command(event.character or event.key)
                return
            if key_to_bytes(event.key, event.character) == self.prefix_bytes:
                self._prefix_pending = True
                self.tab_bar.set_prefix(True)
                return
        await super().on_event(event)

    async def on_prefix_key(self, message: PrefixKey) -> None:
        self.tab_bar.set_prefix(False)
        await self._after_keys_typed_before(message.key)

    async def _after_keys_typed_before(self, key: str) -> None:
        """Run the prefix command for `key` once the keys read before it are where they go. A
        key goes from the app to the focused widget's queue, and what that widget leaves
        bubbles up through each parent's queue back to the app, whose bindings act last (the
        palette's Escape): run at once, Escape then prefix `:` found the palette still open
        (and did nothing) before the Escape closed it. A callback queued behind the key at
        each step runs once the key has moved on; the command then queues behind it here. (The
        keys typed after it wait: the raw driver holds them until `_resume_input`.)"""
        try:
            node = self.screen.focused or self.screen
            for step in (node, *node.ancestors):
                if step is self:
                    break
                taken = asyncio.Event()
                if not step.call_later(taken.set):  # (a widget going away: nothing waits in it)
                    break
                await asyncio.wait_for(taken.wait(), KEYS_BEFORE_WAIT)
        except Exception:  # noqa: BLE001 - a widget busy that long, or gone: the command goes ahead
            pass
        finally:
            if not self.call_later(self._prefix_command, key):  # (closing: no command, the keys go on)
                self._resume_input()

    async def _prefix_command(self, key: str) -> None:
        try:
            before = self.screen
            await self.run_prefix_command(key)
            if self.screen is not before:  # a dialog opened: it takes the keys typed next
                for _ in range(100):
                    if self.screen.focused is not None:
                        break
                    await asyncio.sleep(0.005)
        finally:
            self._resume_input()

    def _resume_input(self) -> None:
        resume = getattr(self._driver, "resume_input", None)  # RawDriver's (not Pilot's)
        if resume is not None:
            resume()  # what was typed after the command goes where it now belongs

    def on_prefix_pending(self, message: PrefixPending) -> None:
        self.tab_bar.set_prefix(message.pending)

    async def run_prefix_command(self, key: str) -> None:
        found = command_for(key)
        if found is not None:
            action, args = found
            await self.run_action(f"{action}({', '.join(map(repr, args))})" if args else action)

    def on_typed_to_tab(self, message: TypedToTab) -> None:
        self.view.to_live()
        self.view.drop_selection()

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

    # -- tabs --------------------------------------------------------------------------------

    def _note_exit(self, tab_id: int, name: str, code: int | None) -> None:
        if tab_id not in self._exits_noted:
            self._exits_noted.add(tab_id)
            label = prefix_label(self.prefix_name)
            self.panel.write(f"tab {name} exited (code {code}); {label} r restarts it", "yellow")

    def _set_tabs(self, rows: list[dict[str, Any]], prefer: int | None = None) -> None:
        before = [tab.id for tab in self.tabs]
        self.tabs = [types.SimpleNamespace(**row) for row in rows]
        self.notifier.tabs(rows)
        for tab in self.tabs:  # also covers a child that exited before this UI attached
            if tab.running:
                self._exits_noted.discard(tab.id)
            else:
                self._note_exit(tab.id, tab.name, tab.exit_code)
        ids = [tab.id for tab in self.tabs]
        if self._wanted is not None and self._wanted in ids:
            wanted, self._wanted = self._wanted, None
            self.show_tab(wanted)
        elif self.active_id not in ids:
            target = prefer if prefer in ids else _neighbour(before, self.active_id, ids)
            if target is not None:
                self.show_tab(target)
        self.tab_bar.set_tabs(self.tabs, self.active_id)
        self._show_exit()

    def show_tab(self, tab_id: int) -> None:
        if tab_id not in [t.id for t in self.tabs]:
            self._wanted = tab_id  # just created: shown when the tab list arrives
            return
        if tab_id != self.active_id and self.active_id is not None:
            self.shown_before = self.active_id
        self.active_id = tab_id
        self.notifier.shown(tab_id)
        self.tab_bar.set_tabs(self.tabs, tab_id)
        self.view.show(tab_id)
        self._show_exit()

    def _show_exit(self) -> None:
        """An exited tab keeps its last screen, with what happened over it."""
        tab = next((t for t in self.tabs if t.id == self.active_id), None)
        note = None
        if tab is not None and not tab.running:
            note = f"exited (code {tab.exit_code}) — {prefix_label(self.prefix_name)} r to restart"
        self.view.set_exited(note)


def _neighbour(before: list[int], gone: int | None, ids: list[int]) -> int | None:
    """The tab to show when the shown one `gone` closed: the one that took its place in the bar
    (the next), else the one before it, as closing a browser tab does; the first without one."""
    if gone in before:
        at = before.index(gone)
        for tab_id in before[at + 1:] + before[:at][::-1]:
            if tab_id in ids:
                return tab_id
    return ids[0] if ids else None
