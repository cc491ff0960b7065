"""The agent panel's log: Textual's RichLog, laid out again only when its geometry changed.

Every layout pass of the screen (a toast coming or going, a dialog) hands each widget its size
again. A scrolling widget compares the container size it is handed with its own, which leaves
out its scrollbar: they never match, so each pass redrew the log's scrollbar down the whole
panel (~1.4 KB to the terminal at 140x45) with nothing changed. Handed what it was handed last
time, the log has nothing to do.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import RichLog


class PanelLog(RichLog):
    _laid_out: tuple[Any, ...] | None = None

    def _size_updated(self, size: Any, virtual_size: Any, container_size: Any, layout: bool = True) -> bool:
        handed = (size, virtual_size, container_size, self.virtual_size)
        if handed == self._laid_out:
            return False  # (the same as last time: no resize, no scrollbar to draw again)
        self._laid_out = handed
        return super()._size_updated(size, virtual_size, container_size, layout)
