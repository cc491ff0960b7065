"""Modal dialogs: new tab, rename, confirm (close, quit), consent, and the help screen."""

from __future__ import annotations

import os
import shlex
import shutil
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from ...terminals.agent_state_kind import AI_CLIS
from .text_field import TextField

# Tab and Shift+Tab in a dialog, as priority bindings: the app then moves the focus as it takes
# the key, before it hands on the keys read with it. Typed ahead (`name<Tab>command`, Tab Enter
# on a question, in one read), they went to the field or button the Tab left.
FOCUS_KEYS = [Binding("tab", "app.focus_next", show=False, priority=True),
              Binding("shift+tab", "app.focus_previous", show=False, priority=True)]
# In a question of buttons only, the arrows move along the row too (the dialog's own keys).
ARROW_KEYS = [Binding("left", "app.focus_previous", show=False), Binding("right", "app.focus_next", show=False)]


def presets() -> list[tuple[str, str]]:
    """(name, command) for the AI CLIs found on PATH (those the host treats as peers: one list),
    in name order, and the user's shell."""
    found = [(name.capitalize(), name) for name in sorted(AI_CLIS) if shutil.which(name)]
    shell = os.environ.get("SHELL") or "/bin/sh"
    return found + [("shell", shell)]


def unique_name(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`, ... : the first no tab has (names compare case-blind)."""
    taken = {name.casefold() for name in taken}
    if base.casefold() not in taken:
        return base
    number = 2
    while f"{base}-{number}".casefold() in taken:
        number += 1
    return f"{base}-{number}"


class NewTabScreen(ModalScreen[dict[str, Any] | None]):
    """Name, command, directory. `opener(spec, done)` asks the host; `done(error)` comes back
    (on the UI's thread): None closes the dialog with the new tab's row, a message stays in the
    dialog under what was typed, which is kept for a fix."""

    BINDINGS = [("escape", "dismiss(None)", "cancel"), *FOCUS_KEYS]
    AUTO_FOCUS = "#new-name"

    def __init__(self, taken: set[str] | None = None, opener: Any = None) -> None:
        super().__init__()
        self.taken = set(taken or ())
        self.opener = opener
        self.presets = presets()  # kept: a button's index names its preset

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("New tab", classes="dialog-title")
            with Horizontal(classes="presets"):
                for index, (name, _command) in enumerate(self.presets):
                    yield Button(name, id=f"preset-{index}", classes="preset", compact=True)
            yield TextField(value=unique_name("shell", self.taken), placeholder="name (letters, digits, - _ .)", id="new-name")
            yield TextField(placeholder="command (default: your shell)", id="new-command")
            yield TextField(placeholder="working directory (default: here)", id="new-cwd")
            yield Label("", id="new-error", classes="dialog-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Open", variant="primary", id="open")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#new-name", Input).select_all()  # typing replaces the proposal

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button.startswith("preset-"):
            name, command = self.presets[int(button.split("-")[1])]
            self.query_one("#new-name", Input).value = unique_name(name, self.taken)
            self.query_one("#new-command", Input).value = command
        elif button == "open":
            self._submit()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit()

    def _submit(self) -> None:
        name = self.query_one("#new-name", Input).value.strip()
        command = self.query_one("#new-command", Input).value.strip()
        cwd = self.query_one("#new-cwd", Input).value.strip()
        if not name:
            self.show_error("a tab needs a name")
            self.query_one("#new-name", Input).focus()
            return
        try:
            argv = shlex.split(command) if command else None
        except ValueError as exc:
            self.show_error(f"command: {exc}")
            return
        spec = {"name": name, "command": argv, "cwd": cwd or None}
        if self.opener is None:
            self.dismiss(spec)
            return
        self.show_error("opening ...")
        self.opener(spec, self._opened)

    def _opened(self, error: str | None, row: dict[str, Any] | None = None) -> None:
        if error is None:
            self.dismiss(row)
        else:
            self.show_error(error)

    def show_error(self, text: str) -> None:
        self.query_one("#new-error", Label).update(text)


class RenameScreen(ModalScreen[str | None]):
    """The tab's new name. `renamer(new, done)` asks the host; `done(error)` comes back (on the
    UI's thread): None closes the dialog, a message stays in it under the name typed, kept for
    a fix (as the new-tab dialog does)."""

    BINDINGS = [("escape", "dismiss(None)", "cancel")]

    def __init__(self, current: str, renamer: Any = None) -> None:
        super().__init__()
        self.current = current
        self.renamer = renamer

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Rename tab '{self.current}'", classes="dialog-title", markup=False)
            yield TextField(value=self.current, id="rename")
            yield Label("Enter renames, Escape cancels", id="rename-error", classes="dialog-error dialog-hint",
                        markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        new = event.value.strip()
        if not new or new == self.current or self.renamer is None:
            self.dismiss(new if new and new != self.current else None)
            return
        self._said("renaming ...")
        self.renamer(new, self._renamed)

    def _renamed(self, error: str | None) -> None:
        if error is None:
            self.dismiss(None)
        else:
            self._said(error)

    def _said(self, text: str) -> None:
        label = self.query_one("#rename-error", Label)
        label.remove_class("dialog-hint")
        label.update(text)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question whose default (Enter) is No: the dangerous answer takes a choice."""

    BINDINGS = [("escape", "dismiss(False)", "no"), ("y", "dismiss(True)", "yes"), ("n", "dismiss(False)", "no"),
                *FOCUS_KEYS, *ARROW_KEYS]
    AUTO_FOCUS = "#no"

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class ConsentScreen(ModalScreen[str]):
    """The coordinator wants to type into a shell tab: allow once / always for this tab / deny."""

    # Deny has the focus, as No has in the other questions: the question pops up while you type,
    # and the Enter that ended your line ran what a small model chose ("Allow once" had it). No
    # letter keys for the same reason: an `a` in the word being typed would allow it always.
    BINDINGS = [("escape", "dismiss('deny')", "deny"), *FOCUS_KEYS, *ARROW_KEYS]
    AUTO_FOCUS = "#deny"

    def __init__(self, tab: str, tool: str, args: dict[str, Any]) -> None:
        super().__init__()
        self.tab, self.tool, self.args = tab, tool, args

    def compose(self) -> ComposeResult:
        question, what = consent_question(self.tool, self.tab, self.args)
        with Vertical(classes="dialog"):
            yield Label(question, classes="dialog-title", markup=False)
            yield Label(what, classes="consent-text", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Allow once", variant="primary", id="once")
                yield Button(f"Always for {self.tab}", id="always")
                yield Button("Deny", variant="error", id="deny")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "deny")


CONSENT_SHOWN = 500  # characters of the text shown; the rest is counted


def consent_question(tool: str, tab: str, args: dict[str, Any]) -> tuple[str, str]:
    """(the question, what would be typed or pressed), in the user's words, not the tool's
    name: a small model's text may be anything, Enter alone included, and all of it is said."""
    if tool == "send_key":
        return f"The coordinator wants to press a key in shell tab '{tab}':", str(args.get("key", ""))
    text = str(args.get("text", ""))
    shown = text[:CONSENT_SHOWN] + (f"… ({len(text) - CONSENT_SHOWN} more characters)" if len(text) > CONSENT_SHOWN else "")
    return (f"The coordinator wants to type into shell tab '{tab}' and press Enter:",
            shown if text.strip() else f"(nothing but {'blanks and ' if text else ''}Enter)")


def help_text(prefix: str) -> tuple[str, Table, str]:
    """The help: what comes before the prefix table, the table (keymap.COMMANDS), what follows.
    The table is rich's, not Markdown's: its key column does not wrap (Textual's Markdown table
    shrank it to `Ctrl+\\`, which made every row two lines tall)."""
    from .keymap import COMMANDS, key_label, prefix_label

    label = prefix_label(prefix)
    table = Table(expand=True, box=box.SIMPLE_HEAD, header_style="bold")
    table.add_column("keys", no_wrap=True, style="bold")
    table.add_column("does", ratio=1)
    for command in COMMANDS:  # (Text, not markup: a key may be `[`)
        table.add_row(Text(f"{label} {key_label(command.keys)}"), Text(command.help))
    table.add_row(Text(f"{label} {label}"), Text(f"send {label} itself to the program"))
    before = f"""\
# tikitaka

Every key goes to the program in the tab (F-keys, Alt, Ctrl and all). tikitaka's own
commands follow the prefix, `{label}` (`[keys] prefix` in config.toml):
"""
    after = """\
The mouse wheel scrolls back through the tab's history; typing returns to the live screen.
Detaching (or closing the terminal) leaves every tab running: `tiki` attaches again.

In the agent panel, **Shift+Tab** cycles the mode: **CHT** types the line into the tab
shown, **KEY** forwards keys to it, **AI** asks the coordinator (Esc cancels, `/reset` starts
a new AI session).
"""
    return before, table, after


class HelpScreen(ModalScreen[None]):
    BINDINGS = [("escape", "dismiss(None)", "close"), ("q", "dismiss(None)", "close")]

    def __init__(self, prefix: str = "ctrl+\\") -> None:
        super().__init__()
        self.prefix = prefix

    def compose(self) -> ComposeResult:
        # (imported here: Markdown brings markdown-it, ~35 ms of every `tiki` start for a
        # dialog most starts never open)
        from textual.widgets import Markdown

        before, table, after = help_text(self.prefix)
        with VerticalScroll(classes="dialog help"):  # scrolls on a short terminal
            yield Markdown(before)
            yield Static(table, id="help-keys")
            yield Markdown(after)
            yield Button("Close (Esc)", id="close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)
