"""Screen frames on their way from the session's reader thread to the app, merged per tab.

The reader takes everything the host sends at once (events must not wait behind frames), and
the app takes frames on its event loop -- which waits whenever the terminal is slow to take
output: a frozen SSH link, a laptop asleep, an emulator stopped. Frames the app has not taken
yet are merged into one per tab, by the rule the host merges them with for a UI that reads
slowly (protocol/README.md, "Screen frames"). So a stalled terminal costs one screenful per
tab, not a frame queued 20 times a second, and once it moves again the view goes straight to
the tab's screen of now instead of replaying every frame it missed.
"""

from __future__ import annotations

import threading
from typing import Any

from ...protocol.ui import merge_order

Frame = dict[str, Any]


def merged(older: Frame, newer: Frame) -> Frame:
    """`older` (not taken yet) followed by `newer`: one frame that brings the view to the same
    screen (the rule: protocol.ui.merge_order)."""
    how = merge_order((older["serial"], older["full"]), (newer["serial"], newer["full"]))
    if how == "newer":
        return newer
    if how == "older":
        return older
    if how == "under":
        return {**older, "full": True, "lines": {**newer["lines"], **older["lines"]}}
    return {**newer, "full": older["full"], "lines": {**older["lines"], **newer["lines"]}}


class FrameInbox:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._frames: dict[int, Frame] = {}

    def put(self, frame: Frame) -> bool:
        """Keep `frame` (any thread); True when the app is to be told: no frame of its tab was
        waiting (one that was has a notice on its way already)."""
        with self._lock:
            waiting = self._frames.get(frame["tab"])
            self._frames[frame["tab"]] = frame if waiting is None else merged(waiting, frame)
            return waiting is None

    def take(self, tab: int) -> Frame | None:
        """The frame waiting for `tab`, all merged (the app's thread)."""
        with self._lock:
            return self._frames.pop(tab, None)
