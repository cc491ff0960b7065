"""`TextField`: the UI's one-line text fields (dialogs, the agent panel's line), whose editing
keys take effect where they were typed.

Textual runs an Input's own key bindings (Backspace, Ctrl+U, Ctrl+K, Home, the arrows ...)
only once the key has bubbled up to the app -- a message hop per widget on the way -- while
the field types a letter the moment it gets it. Keys read together (typed ahead while the UI
is busy, a fast typist over a slow link, a paste of keys from a macro) therefore came out of
order: `ab`, Backspace, `c` gave `ab`. Here the field runs its own bindings itself, in turn.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class TextField(Input):
    async def _on_key(self, event: events.Key) -> None:
        await super()._on_key(event)  # (a printable key is typed there, and stops)
        if event.is_printable or self.app._keymap:  # (a user keymap: Textual's own path, which applies it)
            return
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return
