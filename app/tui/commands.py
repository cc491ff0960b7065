"""The TUI's commands (the actions of keymap.COMMANDS, and what the palette and dialogs do):
each asks the host through the session (`client.call`) and shows what went wrong in the
agent panel. Mixed into `TikiApp`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.markup import escape
from textual.app import SystemCommand

from ...protocol import ops
from . import settings_store
from .dialogs import ConfirmScreen, HelpScreen, NewTabScreen, RenameScreen
from .keymap import COMMANDS, key_label, prefix_label
from .messages import PanelNote
from .palette import Palette

NARROW = 120  # columns: below this the agent panel docks at the bottom
# Rows: below this a panel at the bottom hides, the tab gets the height (the panel's 7 rows
# left a 14-row terminal's tab 6); prefix a still opens it to type into.
SHORT = 18


class Commands:
    tabs: list[Any]
    active_id: int | None
    client: Any
    detached_reason: str | None
    _panel_wanted = False  # prefix a showed a panel a short terminal hides (`apply_panel`)

    # -- tabs ----------------------------------------------------------------------------

    def _active(self) -> Any:
        return next((t for t in self.tabs if t.id == self.active_id), None)

    def _call(self, what: str, op: ops.Op, args: dict[str, Any], then: Any = None) -> None:
        def replied(reply: dict[str, Any]) -> None:  # on the session's reader thread
            if not reply.get("ok"):
                self.post_message(PanelNote(f"{what}: {reply['error']['message']}", "red"))  # type: ignore[attr-defined]
            elif then is not None:
                self.call_from_thread(then, reply["result"])  # type: ignore[attr-defined]

        self.client.call(op, args, replied)

    def _step(self, delta: int) -> None:
        if self.tabs:
            ids = [t.id for t in self.tabs]
            index = ids.index(self.active_id) if self.active_id in ids else 0
            self.show_tab(ids[(index + delta) % len(ids)])  # type: ignore[attr-defined]

    def action_next_tab(self) -> None:
        self._step(1)

    def action_prev_tab(self) -> None:
        self._step(-1)

    def action_last_tab(self) -> None:
        before = self.shown_before  # type: ignore[attr-defined]
        if before in [t.id for t in self.tabs]:  # type: ignore[attr-defined]
            self.show_tab(before)  # type: ignore[attr-defined]
        else:
            said = "no other tab was shown before this one" if before is None else "the tab shown before this one was closed"
            self.notify(said, title="Last tab")  # type: ignore[attr-defined]

    def action_goto_tab(self, number: int) -> None:
        if 0 < number <= len(self.tabs):
            self.show_tab(self.tabs[number - 1].id)  # type: ignore[attr-defined]

    def action_new_tab(self) -> None:
        def opener(spec: dict[str, Any], done: Any) -> None:
            def replied(reply: dict[str, Any]) -> None:  # on the session's reader thread
                if reply.get("ok"):
                    self.call_from_thread(done, None, reply["result"])  # type: ignore[attr-defined]
                else:  # shown in the dialog, which keeps what was typed
                    self.call_from_thread(done, reply["error"]["message"])  # type: ignore[attr-defined]

            self.client.call(ops.TERMINAL_NEW, spec, replied)

        def created(row: dict[str, Any] | None) -> None:
            if row:
                self.show_tab(row["id"])  # type: ignore[attr-defined]

        taken = {tab.name for tab in self.tabs}
        self.push_screen(NewTabScreen(taken, opener), created)  # type: ignore[attr-defined]

    def action_rename_tab(self) -> None:
        tab = self._active()
        if tab is None:
            return

        def renamer(new: str, done: Any) -> None:
            def replied(reply: dict[str, Any]) -> None:  # on the session's reader thread
                error = None if reply.get("ok") else reply["error"]["message"]
                self.call_from_thread(done, error)  # type: ignore[attr-defined]  # (a refusal stays in the dialog)

            self.client.call(ops.TERMINAL_RENAME, {"name": tab.name, "new_name": new}, replied)

        self.push_screen(RenameScreen(tab.name, renamer))  # type: ignore[attr-defined]

    def action_restart_tab(self) -> None:
        tab = self._active()
        if tab is not None:
            self._call("restart", ops.TERMINAL_RESTART, {"name": tab.name}, lambda row: self.show_tab(row["id"]))  # type: ignore[attr-defined]

    def action_close_tab(self) -> None:
        tab = self._active()
        if tab is None:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._call("close", ops.TERMINAL_CLOSE, {"name": tab.name})

        question = (f"Close tab '{tab.name}' and end its program?" if tab.running else
                    f"Close tab '{tab.name}'? Its program has exited.")
        self.push_screen(ConfirmScreen(question), confirmed)  # type: ignore[attr-defined]

    # -- the UI ---------------------------------------------------------------------------

    def action_zoom(self) -> None:
        """The tab view alone fills the window, or the layout is back. (Textual's "Maximize"
        took whatever had the keyboard -- the panel's input line alone on a hatched screen --
        and only its "Minimize" undid it, as Esc goes to the program: both left the palette.)"""
        view = self.view  # type: ignore[attr-defined]
        screen = view.screen  # (the main screen, also under a dialog: it must not take the view)
        if screen.maximized is view:
            screen.minimize()
        elif screen.maximize(view, container=False):
            screen.set_focus(view)
            for toast in self._notifications:  # type: ignore[attr-defined]  # (up already: see `notify`)
                self.set_timer(max(0.0, toast.time_left) + 0.3, self._redraw_zoomed)  # type: ignore[attr-defined]

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Textual's, and while zoomed the screen drawn again once the toast is due to go:
        Textual draws a toast over a maximized view but not its going (it stayed for good)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)  # type: ignore[misc]
        view = getattr(self, "view", None)  # (none yet while the app starts)
        if view is not None and view.is_mounted and view.screen.maximized is not None:
            due = (self.NOTIFICATION_TIMEOUT if timeout is None else timeout) + 0.3  # type: ignore[attr-defined]
            self.set_timer(due, self._redraw_zoomed)  # type: ignore[attr-defined]

    def _redraw_zoomed(self) -> None:
        screen = self.view.screen  # type: ignore[attr-defined]
        if screen.maximized is not None:
            screen.refresh()

    def action_toggle_focus(self) -> None:
        # set_focus at once (widget.focus() is deferred): keys typed right after the command
        # must already reach the widget it chose
        line = self.panel.query_one("#agent-input")  # type: ignore[attr-defined]
        if self.view.screen.maximized is not None:  # type: ignore[attr-defined]  # zoomed: the panel is wanted
            self.action_zoom()
        if self.screen.focused is not line:  # type: ignore[attr-defined]  # (the view, or nothing)
            if self.ui["panel"] == "hidden":  # type: ignore[attr-defined]
                self.action_cycle_panel()
            elif self.panel.hidden:  # type: ignore[attr-defined]  # hidden for a short terminal
                self._panel_wanted = True  # shown while it has the keyboard
                self.apply_panel()
            self.screen.set_focus(line)  # type: ignore[attr-defined]
        else:
            self.screen.set_focus(self.view)  # type: ignore[attr-defined]
            if self._panel_wanted:
                self._panel_wanted = False
                self.apply_panel()

    def action_cycle_panel(self) -> None:
        order = settings_store.PANELS
        ui = self.ui  # type: ignore[attr-defined]
        ui["panel"] = order[(order.index(ui["panel"]) + 1) % len(order)]
        self.apply_panel()
        self._save_ui()  # type: ignore[attr-defined]
        if ui["panel"] != "hidden" and self.panel.hidden:  # type: ignore[attr-defined]
            self.notify(f"the terminal is too short for the panel ({self.size.height} rows; it shows from "  # type: ignore[attr-defined]
                        f"{SHORT}); {prefix_label(self.prefix_name)} a opens it to type into",  # type: ignore[attr-defined]
                        timeout=6)

    def apply_panel(self, width: int | None = None, height: int | None = None) -> None:
        """Dock the panel as chosen, except that on a terminal narrower than NARROW columns a
        panel on the right goes to the bottom (the tab gets the width), and on one shorter
        than SHORT rows a panel at the bottom hides unless it has the keyboard (the tab gets
        the height)."""
        position = self.ui["panel"]  # type: ignore[attr-defined]
        width = self.size.width if width is None else width  # type: ignore[attr-defined]
        height = self.size.height if height is None else height  # type: ignore[attr-defined]
        if position == "right" and 0 < width < NARROW:
            position = "bottom"
        if position == "bottom" and 0 < height < SHORT and not self._panel_wanted:
            position = "hidden"
        self.main_area.set_classes(f"panel-{position}")  # type: ignore[attr-defined]
        self.panel.shown(position != "hidden")  # type: ignore[attr-defined]
        if position == "hidden" and self.screen.focused is self.panel.query_one("#agent-input"):  # type: ignore[attr-defined]
            self.screen.set_focus(self.view)  # type: ignore[attr-defined]  # (hidden, it leaves the keyboard to the tab)

    def get_system_commands(self, screen: Any) -> Any:
        """The command palette: the prefix table, one entry per tab, then Textual's own."""
        label = prefix_label(self.prefix_name)  # type: ignore[attr-defined]
        for command in COMMANDS:
            if command.action in ("goto_tab", "command_palette"):
                continue
            yield SystemCommand(command.title, escape(f"{command.help} ({label} {key_label(command.keys)})"),
                                getattr(self, f"action_{command.action}"))
        for number, tab in enumerate(self.tabs, start=1):
            yield SystemCommand(f"Go to tab {tab.name}", f"tab {number}" + (f" ({label} {number})" if number < 10 else ""),
                                lambda tab_id=tab.id: self.show_tab(tab_id))  # type: ignore[attr-defined]
        # Textual's own, but "Keys" (a panel of Textual's bindings, not tikitaka's: `Help` is
        # ours), "Quit" (it would detach: `Detach` says so), "Maximize"/"Minimize" (`Zoom tab`)
        # and "Screenshot" (ours says where it saved, below).
        yield from (c for c in super().get_system_commands(screen)  # type: ignore[misc]
                    if c.title not in ("Keys", "Quit", "Maximize", "Minimize", "Screenshot"))
        # (after a moment: the palette closes first, and the picture is of the screen under it)
        yield SystemCommand("Screenshot", "save the screen as SVG in the directory tiki was started in",
                            lambda: self.set_timer(0.1, self.action_save_screenshot))  # type: ignore[attr-defined]

    def action_command_palette(self) -> None:
        """Textual's palette, with our search field (app/tui/palette.py)."""
        if not Palette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(Palette(id="--command-palette"))  # type: ignore[attr-defined]

    def action_redraw(self, _app: object = None) -> None:
        """Every cell drawn again: back from a stop (SIGTSTP, then `fg`), when the terminal was
        the shell's meanwhile, or asked for (prefix R) when something else wrote over the screen
        -- a `wall` message, say. Textual's compositor, and `outer_cells`, take what they drew
        before as still there."""
        self.outer_cells.reset()  # type: ignore[attr-defined]
        # (under a dialog too: the screen behind shows around it)
        for screen in self.screen_stack:  # type: ignore[attr-defined]
            for widget in screen.walk_children(with_self=True):
                widget.refresh()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.prefix_name))  # type: ignore[attr-defined]

    def action_save_screenshot(self) -> None:
        """The screen as SVG, in the directory `tiki` was started in (its home, once that is
        gone), the file named. (Textual's own went to ~/Downloads, and where there is none, as
        on a server reached over SSH, said only "Failed to save screenshot".)"""
        name = time.strftime("tikitaka-%Y%m%d-%H%M%S")
        try:
            folder = Path.cwd()
        except FileNotFoundError:
            folder = Path.home()
        path = folder / f"{name}.svg"
        try:
            for again in range(2, 100):  # (two in one second: the first is kept)
                if not path.exists():
                    break
                path = folder / f"{name}-{again}.svg"
            path.write_text(self.export_screenshot(), encoding="utf-8")  # type: ignore[attr-defined]
        except OSError as exc:
            self.notify(f"not saved: {path}: {exc.strerror or exc}", title="Screenshot", severity="error")  # type: ignore[attr-defined]
            return
        self.notify(f"saved {path}", title="Screenshot")  # type: ignore[attr-defined]

    def action_detach(self) -> None:
        """Leave; the host and every tab run on."""
        self.exit()  # type: ignore[attr-defined]

    async def action_quit(self) -> None:
        """Textual's own quit (the palette's Quit) detaches: stopping everything is `q`."""
        self.action_detach()

    def action_stop_host(self) -> None:
        running = [t.name for t in self.tabs if t.running]
        question = ("Stop the host and all its tabs? " +
                    (f"{len(running)} still running: {', '.join(running)}" if running else "No tab is running."))

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._call("stop", ops.HOST_SHUTDOWN, {}, self._stopped)

        self.push_screen(ConfirmScreen(question, yes="Stop everything", no="Cancel"), confirmed)  # type: ignore[attr-defined]

    def _stopped(self, result: Any) -> None:
        self.detached_reason = "the host is stopping: its tabs were ended"
        self.exit()  # type: ignore[attr-defined]
