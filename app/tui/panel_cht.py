"""CHT mode: lines typed in the agent panel go to the active tab, one after another.

The host types each with its one typing policy (`terminal.send`: a paste, Enter after a gap and
verified; into a working agent once it is idle), as `tiki terminal-send` does: a request of its
own, which streams `queued` and may wait minutes, so it runs on a worker thread. One worker
types the lines in the order they were entered; a worker per line raced, and lines typed ahead
reached the tab in any order.
"""

from __future__ import annotations

import threading
from typing import Any

from ...protocol import ops
from ...protocol.limits import QUEUE_FOR
from .. import client
from .messages import PanelNote


class ChtLines:
    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self._lines: list[tuple[int, str]] = []  # (tab, line) not typed yet, oldest first
        self._lock = threading.Lock()
        self._busy = False  # a worker is typing them

    def add(self, tab: int, text: str) -> None:
        with self._lock:
            self._lines.append((tab, text))
            if self._busy:
                return  # (the worker takes it after the ones before it)
            self._busy = True
        self.panel.run_worker(self._type_lines, thread=True, group="cht")

    def _type_lines(self) -> None:
        while True:
            with self._lock:
                if not self._lines:
                    self._busy = False
                    return
                tab, text = self._lines.pop(0)
            self._type(tab, text)

    def _type(self, tab: int, text: str) -> None:
        panel = self.panel
        name = next((t.name for t in panel.tiki.tabs if t.id == tab), None)
        if name is None:
            panel.post_message(PanelNote("CHT: that tab is gone", "red"))
            return

        def queued(event: dict[str, Any]) -> None:
            if event.get("event") == "queued":
                panel.post_message(PanelNote(f"CHT: {name} is {event['state']}; your line is queued and typed "
                                             "when it is idle", "yellow"))

        try:
            result = client.call(ops.TERMINAL_SEND.name, ops.TabSend(name=name, text=text, wait=True),
                                 timeout=QUEUE_FOR + 60, on_event=queued, socket_path=panel.tiki.client.socket_path)
        except (client.HostError, client.NoHost, client.ClientTimeout) as exc:
            panel.post_message(PanelNote(f"CHT: {getattr(exc, 'message', None) or exc}", "red"))
            return
        if result.get("queued_ms"):
            panel.post_message(PanelNote(f"CHT: typed into {name}", "dim"))
