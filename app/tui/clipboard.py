"""Copying and pasting in the TUI (mixed into `TikiApp`).

A selection made with the mouse (or in scrollback mode) is copied twice: to the outer terminal
by OSC 52 (so it reaches the system clipboard through tmux, SSH, ...) and to the UI's own buffer,
which prefix+`]` pastes into the tab shown (as tmux's paste-buffer does). A program's own OSC 52
(the host sends it as a `clipboard` event) is passed on to the outer terminal too, unless
`program_clipboard = "off"` in ui.toml: a program in a tab then cannot set the clipboard.
"""

from __future__ import annotations

from typing import Any

from ...terminals import osc52


class Clipboard:
    paste_buffer: str = ""
    ui: dict[str, str]
    client: Any

    def _to_outer(self, text: str) -> None:
        driver = getattr(self, "_driver", None)
        if driver is not None:
            driver.write(osc52.encode(text).decode("ascii"))
            driver.flush()

    def copy_selection(self, text: str) -> None:
        """A selection was made: copy it to the outer terminal and the paste buffer."""
        self.paste_buffer = text
        self._to_outer(text)
        lines = text.count("\n") + 1
        self.notify(f"copied {len(text)} characters" + (f" ({lines} lines)" if lines > 1 else ""),  # type: ignore[attr-defined]
                    timeout=2)

    def program_copied(self, event: dict[str, Any]) -> None:
        """The program in a tab set the clipboard (OSC 52)."""
        if self.ui.get("program_clipboard", "on") != "off":
            self._to_outer(event["text"])

    def action_scrollback_mode(self) -> None:
        self.view.focus()  # type: ignore[attr-defined]
        self.view.copy.enter()  # type: ignore[attr-defined]

    def action_paste_buffer(self) -> None:
        tab = self.view.tab_id  # type: ignore[attr-defined]
        if self.paste_buffer and tab is not None:
            self.client.paste(tab, self.paste_buffer)
