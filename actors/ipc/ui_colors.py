"""The default colours the tabs' programs are told (OSC 10/11): those of the terminal the most
recently active UI runs in, as it answered its UI's own OSC 10/11 (`colors`, up). They follow
the latest UI as the tabs' size does, stay when it detaches (a program started later still
gets an answer), and a tab opened or started again gets them too. A UI whose terminal did not
answer changes nothing: the last known colours stay, none known means no answer, as before.
"""

from __future__ import annotations

from typing import Any, Callable

import pykka

from ..errors import TikiError

Colors = tuple[str | None, str | None]  # (foreground, background): `rgb:RRRR/GGGG/BBBB` or None


class TabColors:
    def __init__(self, terminals: Callable[[], list[Any]]) -> None:
        self._terminals = terminals  # every tab's terminal actor (proxies)
        self.colors: Colors = (None, None)

    def follow(self, session: Any) -> None:
        """`session` is the latest UI now (or told its colours while it is): its colours go."""
        colors = getattr(session, "colors", (None, None))
        if colors != (None, None) and colors != self.colors:
            self.colors = colors
            self.tell_all()

    def tell_all(self) -> None:
        """Every tab gets the colours (a tab opened or restarted since does not have them)."""
        if self.colors == (None, None):
            return
        for terminal in self._terminals():
            try:
                terminal.set_colors(*self.colors)  # (not awaited: a tell in effect)
            except (TikiError, pykka.ActorDeadError):
                pass  # closed meanwhile
