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
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._rotate_if_big()
                self._write(line)
        except (OSError, ValueError) as exc:
            if self.on_error is not None and kind != "service_failed":  # never recurse
                self.on_error(exc)
        return entry

    def _write(self, line: bytes) -> None:
        """Append one whole line or nothing: a write that only partly fits (disk full) is cut
        back off, else the next event would be joined to its half and `tiki log` would skip
        both as one damaged line. The file is private (0600): it holds what peers said."""
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        try:
            st = os.fstat(fd)
            size = st.st_size
            if st.st_mode & 0o077 and hasattr(os, "fchmod"):  # one made before logs were private
                os.fchmod(fd, 0o600)
            if size:  # (lseek + read, not pread: Windows has none; O_APPEND writes at the end anyway)
                os.lseek(fd, size - 1, os.SEEK_SET)
                if os.read(fd, 1) != b"\n":  # a half line left by a crash: end it
                    line = b"\n" + line
            try:
                done = 0
                while done < len(line):
                    done += os.write(fd, line[done:])
            except OSError:
                os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)

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
