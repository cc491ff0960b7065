"""The default colours of the terminal the UI runs in, for the tabs' programs that ask.

vim, Neovim and Codex ask their terminal for its default foreground and background (OSC 10 and
11) to pick their colours for a dark or a light screen. In a tab the terminal they ask is
tikitaka's, so the UI asks its own terminal once as it starts, and tells the host what it
answered (`colors`, up: protocol/README.md); the host answers the tabs' programs with the
colours of the latest UI's terminal. A terminal that does not answer (tmux 3.3a, as a pane
does not) leaves the tabs unanswered, as before. The answers come in on the input thread,
among the keys (`raw_input` routes them here, never to a tab).
"""

from __future__ import annotations

import time
from typing import Any

from .raw_input import COLOR_REPLY, Splitter

QUERY = "\x1b]10;?\x1b\\\x1b]11;?\x1b\\"  # terminals answer in the order asked
WAIT = 1.0  # seconds the answers may take (over SSH too); later ones are still taken


class OuterColors:
    def __init__(self, splitter: Splitter, client: Any) -> None:
        self._splitter, self._client = splitter, client
        self._colors: dict[bytes, str] = {}  # b"10" / b"11" -> "rgb:..."
        self._told: tuple[str | None, str | None] = (None, None)
        self._until = 0.0

    def asked(self) -> None:
        """QUERY was written to the terminal: its answers are awaited for WAIT s."""
        self._until = time.monotonic() + WAIT
        self._splitter.awaiting_colors = True

    def take(self, chunk: bytes) -> bytes:
        """`chunk` (for the UI) without the colour answers in it; the host is told of them."""
        if b"\x1b]" not in chunk:
            return chunk
        for reply in COLOR_REPLY.finditer(chunk):
            self._colors[reply[1]] = reply[2].decode("ascii", "replace")
        if b"11" in self._colors:  # (the last asked: all the answers that will come are here)
            self._splitter.awaiting_colors = False
            self._tell()
        return COLOR_REPLY.sub(b"", chunk)

    def tick(self) -> None:
        """On the input thread's every turn: stop waiting after WAIT s (telling what came)."""
        if self._splitter.awaiting_colors and time.monotonic() > self._until:
            self._splitter.awaiting_colors = False
            self._tell()

    def _tell(self) -> None:
        colors = (self._colors.get(b"10"), self._colors.get(b"11"))
        if colors != self._told and colors != (None, None):
            self._told = colors
            self._client.colors(*colors)
