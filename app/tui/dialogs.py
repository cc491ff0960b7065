"""Modal dialogs: new tab, rename, confirm (close, quit), consent, and the help screen."""

from __future__ import annotations

import os
import shutil
import shlex
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Markdown

AI_CLIS = ("claude", "codex", "gemini", "aider")


def presets() -> list[tuple[str, str]]:
    """(name, command) for the AI CLIs found on PATH and the user's shell."""
    found = [(name.capitalize(), name) for name in AI_CLIS if shutil.which(name)]
    shell = os.environ.get("SHELL") or "/bin/sh"
    return found + [("shell", shell)]


class NewTabScreen(ModalScreen[dict[str, Any] | None]):
    BINDINGS = [("escape", "dismiss(None)", "cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("New tab", classes="dialog-title")
            with Horizontal(classes="presets"):
                for index, (name, command) in enumerate(presets()):
                    yield Button(name, id=f"preset-{index}", classes="preset")
            yield Input(placeholder="name (letters, digits, - _ .)", id="new-name")
            yield Input(placeholder="command (default: your shell)", id="new-command")
            yield Input(placeholder="working directory (default: here)", id="new-cwd")
            with Horizontal(classes="buttons"):
                yield Button("Open", variant="primary", id="open")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button.startswith("preset-"):
            name, command = presets()[int(button.split("-")[1])]
            self.query_one("#new-name", Input).value = name
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
            self.query_one("#new-name", Input).focus()
            return
        self.dismiss({"name": name, "command": shlex.split(command) if command else None, "cwd": cwd or None})


class RenameScreen(ModalScreen[str | None]):
    BINDINGS = [("escape", "dismiss(None)", "cancel")]

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Rename tab '{self.current}'", classes="dialog-title")
            yield Input(value=self.current, id="rename")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [("escape", "dismiss(False)", "no"), ("y", "dismiss(True)", "yes"), ("n", "dismiss(False)", "no")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", variant="error", id="yes")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class ConsentScreen(ModalScreen[str]):
    """The coordinator wants to type into a shell tab: allow once / always for this tab / deny."""

    BINDINGS = [("escape", "dismiss('deny')", "deny")]

    def __init__(self, tab: str, tool: str, args: dict[str, Any]) -> None:
        super().__init__()
        self.tab, self.tool, self.args = tab, tool, args

    def compose(self) -> ComposeResult:
        what = self.args.get("text") or self.args.get("key") or ""
        with Vertical(classes="dialog"):
            yield Label(f"The coordinator wants to {self.tool} in shell tab '{self.tab}':", classes="dialog-title")
            yield Label(str(what)[:500], classes="consent-text")
            with Horizontal(classes="buttons"):
                yield Button("Allow once", variant="primary", id="once")
                yield Button(f"Always for {self.tab}", id="always")
                yield Button("Deny", variant="error", id="deny")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "deny")


HELP = """\
# tikitaka

Keys go to the terminal, except these (F-keys and Alt+digits, which shells, vim and the AI
CLIs leave alone):

| key | does |
|---|---|
| F1 | this help |
| F2 | focus the agent panel / back to the terminal |
| F3 | new tab |
| F4 | rename the tab |
| F5 | restart the tab's command |
| F6 / F7 | previous / next tab |
| Alt+1 .. Alt+9 | tab by number |
| F8 | close the tab |
| F9 | agent panel: right, bottom, hidden |
| F10 | quit (asks while tabs are running) |
| F12 | command palette |
| Shift+PageUp / PageDown, mouse wheel | scroll back through history |

In the agent panel, **Shift+Tab** cycles the mode: **CHT** types the line into the active
tab, **KEY** forwards keys to it, **AI** asks the coordinator (Esc cancels, `/reset` starts a
new AI session).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [("escape", "dismiss(None)", "close"), ("f1", "dismiss(None)", "close")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Markdown(HELP)
            yield Button("Close (Esc)", id="close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)
