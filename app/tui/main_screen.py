"""The screen the tab view, the tab bar and the agent panel live on.

Textual's screen repaints itself whole whenever the focused widget changes (its `focused` is a
reactive that repaints): 11-15 KB to the terminal at 140x45 each time the keyboard goes to
the agent panel (prefix a) or back, for an input line's look and the cursor. Textual restyles
the widgets a focus change concerns on its own (the focused, the blurred and their
`:focus-within` ancestors); this screen leaves the rest of the screen as it is.
"""

from __future__ import annotations

from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget


class MainScreen(Screen[None]):
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
