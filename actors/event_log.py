"""The host's event log: one JSON object per line in the user state directory.

bot-chat messages, tab lifecycle and coordinator run summaries all land here, in the order
the host accepted them. Appends are serialised by a lock, so concurrent senders each keep
their own order. `tiki log` reads the file directly, so it works with no host running.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

from .private_file import append_line, make_private_dir

ROTATE_BYTES = 10 * 1024 * 1024  # keep one previous file beside the current one


class EventLog:
    """Appending never raises: a write that fails (disk full, no directory) leaves nothing of the
    entry behind and goes to `on_error` (the host reports it as a failure of the `event_log`
    service) and the caller carries on, so a broken log can never take a bot-chat delivery or a
    coordinator run down with it."""

    def __init__(self, path: Path, on_error: Callable[[BaseException], object] | None = None) -> None:
        self.path = path
        self.on_error = on_error
        self._lock = threading.Lock()

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        entry = {"time": time.time(), "kind": kind, **fields}
        try:
            line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8", "backslashreplace")
            with self._lock:
                make_private_dir(self.path.parent)
                self._rotate_if_big()
                append_line(self.path, line)  # whole or not at all, 0600: it holds what peers said
        except (OSError, ValueError) as exc:
            if self.on_error is not None and kind != "service_failed":  # never recurse
                self.on_error(exc)
        return entry

    def _rotate_if_big(self) -> None:
        try:
            if self.path.stat().st_size > ROTATE_BYTES:
                os.replace(self.path, self.path.with_suffix(".jsonl.1"))
        except FileNotFoundError:
            pass

    def tail(self, n: int | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return read_events(self.path, n)


def read_events(path: Path, last: int | None = None) -> list[dict[str, Any]]:
    """Events oldest first; a damaged line (a crash mid-write) is skipped, not fatal."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except FileNotFoundError:
        return []
    events = []
    for line in lines if last is None else lines[-last:]:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            events.append(entry)
    return events


def format_event(entry: dict[str, Any]) -> str:
    """One human line: time, sender (or subject), what happened."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.get("time", 0)))
    kind = entry.get("kind", "?")
    if kind == "bot_chat":
        mark = "" if entry.get("verified") else " (unverified)"
        return f"{stamp}  [{entry.get('sender')}]{mark} {entry.get('text', '')}"
    subject = entry.get("tab") or entry.get("sender") or "host"
    detail = entry.get("detail") or entry.get("message") or ""
    return f"{stamp}  [{subject}] {kind.replace('_', ' ')}{': ' + detail if detail else ''}"
