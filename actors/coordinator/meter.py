"""A model turn's progress as `Generating` events, for the status line of `tiki ask` and the
panel: at most a few a second while tokens stream in, and a final one with the turn's figures."""

from __future__ import annotations

import time
from typing import Any, Callable

from .events import Generating
from .limits import PROGRESS_EVERY


class Meter:
    """A turn's progress as events: at most four a second, and a final one with the figures."""

    def __init__(self, publish: Callable[[Any], None], run_id: str, turn: int) -> None:
        self.publish, self.run_id, self.turn = publish, run_id, turn
        self.started = time.monotonic()
        self.first: float | None = None
        self.last = 0.0
        self.tokens = 0  # generated so far (what a turn cut short still counts)

    def progress(self, tokens: int, thinking: int) -> None:
        now, self.tokens = time.monotonic(), tokens
        self.first = now if self.first is None else self.first
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            rate = (tokens + thinking) / (now - self.first) if now > self.first else 0.0
            self.publish(Generating(self.run_id, self.turn, tokens, round(rate, 1), round(now - self.started, 1),
                                    thinking))

    def final(self, output: Any) -> None:
        generating = max(output.seconds - output.first_token, 1e-3)
        self.publish(Generating(self.run_id, self.turn, output.tokens, round(output.tokens / generating, 1),
                                round(output.seconds, 1), len(output.thinking) // 4, final=True))
