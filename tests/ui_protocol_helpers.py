"""A UI session on a real host for the UI-protocol tests: the UI client's events queued for the
test to look at, the screen they draw kept row by row."""

from __future__ import annotations

import queue
import time
from pathlib import Path
from typing import Any

from conftest import BASH_TAB

from tikitaka.app.ui_client import UiClient

TWO_TABS = BASH_TAB + '[[tab]]\nname = "other"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\n'


class Session:
    """A UI session whose events are queued for the test to look at."""

    def __init__(self, env: dict[str, str], cols: int = 80, rows: int = 24, start: bool = True, fps: int = 60) -> None:
        self.client = UiClient(Path(env["TIKI_SOCKET"]), client="test")
        self.hello = self.client.connect(cols, rows, fps)
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.closed: list[str] = []
        self.tabs = {t["name"]: t["id"] for t in self.hello["tabs"]}
        self.rows: dict[int, str] = {}
        self.segments: dict[int, list[list[str]]] = {}
        if start:
            self.client.start(self.events.put, self.closed.append)

    def next(self, kind: str, timeout: float = 15, where: Any = None) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            if event.get("kind") == "screen":
                for row, line in event["lines"].items():
                    self.rows[int(row)] = "".join(text for text, _ in line)
                    self.segments[int(row)] = line
            if event.get("kind") == kind and (where is None or where(event)):
                return event

    def screen(self) -> str:
        return "\n".join(self.rows[row].rstrip() for row in sorted(self.rows))

    def until_screen(self, needle: str, timeout: float = 15) -> str:
        self.next("screen", timeout, lambda e: needle in self.screen())
        return self.screen()
