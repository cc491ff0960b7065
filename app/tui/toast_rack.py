"""Textual's toast rack, kept in the layout while no toast is up, so a toast costs its own rows.

Textual hides the rack (`display: none`) whenever the last toast goes and shows it for the next.
The rack is docked, and docked widgets are placed after the others, so hiding or showing it
renumbers the paint order of every widget on the screen; the compositor compares each widget's
whole geometry, order included, and took all of them as changed: every toast that came or went
wrote the whole screen again (15 KB at 140x45; `test_notify_tmux.py`). Shown all the time the
rack is invisible and takes no room (its own layer, its height that of its toasts, none), and a
toast changes only the rack's rows.
"""

from __future__ import annotations

from typing import Any

from textual.widgets._toast import ToastRack

_textual_show = ToastRack.show


def _show_staying(self: ToastRack, notifications: Any) -> None:
    _textual_show(self, notifications)
    self.display = True  # (set back before the layout runs: the order never changes)


def keep_shown() -> None:
    """From now on the rack stays displayed (the app's CSS displays it from the start)."""
    ToastRack.show = _show_staying  # type: ignore[method-assign]
