"""The command palette: Textual's own, with its search field a `TextField`, so editing keys
typed ahead with letters (Ctrl+U then a new search, in one read) apply where they were typed
(see text_field)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.command import CommandInput, CommandPalette

from .text_field import TextField


class PaletteField(CommandInput, TextField):
    """The palette's search field: still a CommandInput first (Textual's queries and styles go
    by the first base's line), with TextField's key handling (CommandInput has none of its own)."""


class Palette(CommandPalette):
    def compose(self) -> ComposeResult:
        for widget in super().compose():  # (yielded inside the palette's containers: same place)
            if type(widget) is CommandInput:
                widget = PaletteField(placeholder=widget.placeholder, select_on_focus=False)
            yield widget
