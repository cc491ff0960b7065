"""Typing into a tab the way a person would, run in the caller's thread.

`send_text` types the text, waits until the child's echo has settled, and only then sends
Enter as a separate write: AI TUIs (and some REPLs) drop an Enter that arrives glued to a
paste. Waiting happens here, in the IPC handler's or the reactor's thread, never inside a
terminal actor's mailbox, so the tab keeps answering while we wait.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from .errors import TikiError, WaitTimeout

ASK_TIMEOUT = 5.0
POLL = 0.005
ECHO_QUIET = 0.015  # the echo counts as settled after 15 ms without new output
NO_ECHO_WAIT = 0.3  # a child that does not echo at all gets Enter after this long


class WaitAbandoned(TikiError):
    """Nobody is waiting for the answer any more."""


def _counter(terminal: Any) -> int:
    return terminal.output_counter().get(timeout=ASK_TIMEOUT)


def wait_for_settle(terminal: Any, before: int, *, quiet: float = ECHO_QUIET, no_echo: float = NO_ECHO_WAIT) -> int:
    """Wait until output has started after `before` and then stayed quiet for `quiet` s."""
    start = time.monotonic()
    last_count, last_change = before, start
    while True:
        time.sleep(POLL)
        now = time.monotonic()
        count = _counter(terminal)
        if count != last_count:
            last_count, last_change = count, now
        if last_count != before and now - last_change >= quiet:
            return last_count
        if last_count == before and now - start >= no_echo:
            return last_count
        if now - start >= no_echo + 2.0:  # a child printing non-stop never settles
            return last_count


def send_text(terminal: Any, text: str, *, enter: bool = True) -> dict[str, Any]:
    """Type `text` (then Enter); `changed` says whether the child reacted at all."""
    before = _counter(terminal)
    if text:
        terminal.paste(text).get(timeout=ASK_TIMEOUT)
    if not enter:
        return {"ok": True, "changed": _wait_change(terminal, before)}
    settled = wait_for_settle(terminal, before) if text else before
    terminal.write(b"\r").get(timeout=ASK_TIMEOUT)
    changed = settled != before or _wait_change(terminal, settled)
    return {"ok": True, "changed": changed}


def _wait_change(terminal: Any, count: int, within: float = 0.5) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if _counter(terminal) != count:
            return True
        time.sleep(POLL)
    return False


def wait_idle(terminal: Any, idle_ms: int, timeout_ms: int, gone: Callable[[], bool] | None = None) -> float:
    """Block until the tab printed nothing for `idle_ms`; returns the seconds waited.
    Raises WaitTimeout when `timeout_ms` passes first, WaitAbandoned when `gone()` says the
    one who asked has left (so an abandoned wait does not hold its thread for hours)."""
    start = time.monotonic()
    deadline = start + timeout_ms / 1000
    idle = idle_ms / 1000
    while True:
        if gone is not None and gone():
            raise WaitAbandoned("the client hung up; wait abandoned")
        age = terminal.last_output_age().get(timeout=ASK_TIMEOUT)
        if age >= idle:
            return time.monotonic() - start
        now = time.monotonic()
        if now >= deadline:
            raise WaitTimeout(f"tab still printing after {timeout_ms} ms (wanted {idle_ms} ms of quiet)")
        time.sleep(min(idle - age, deadline - now, 0.05) + 0.001)
