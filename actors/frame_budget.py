"""How often screen frames may go: a budget of BURST frames, refilled at `rate` a second.

Both places that pace frames use it -- a tab's notifier (at most ~60 frames a second however
fast the program writes) and a UI session's sender (at most the UI's `fps`). A fixed wait of
1/rate after every frame would make the frame right after another wait out the rest of the
slot: the key's echo typed just after a spinner frame of an agent CLI (p95 13.7 ms against
tmux's 1.5, measured), the frame a flood ends with. The budget lets BURST go back to back and
keeps the rate over any longer stretch.
"""

from __future__ import annotations

import time

BURST = 2


class FrameBudget:
    """Not thread-safe: one pacing thread owns it."""

    def __init__(self, rate: float, burst: int = BURST) -> None:
        self.rate = max(1e-3, rate)
        self.burst = float(burst)
        self._budget, self._at = self.burst, time.monotonic()

    def available(self) -> float:
        """The frames that may go now (refilled up to `burst`)."""
        now = time.monotonic()
        self._budget = min(self.burst, self._budget + (now - self._at) * self.rate)
        self._at = now
        return self._budget

    def wait(self) -> float:
        """Seconds until a frame may go (0 when one may go now)."""
        return max(0.0, (1.0 - self.available()) / self.rate)

    def spend(self) -> None:
        self.available()
        self._budget -= 1.0
