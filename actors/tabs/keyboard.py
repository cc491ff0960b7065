"""Typing into a tab the way a person would, run in the caller's thread.

`send_text` types the text, waits until the child's echo has settled, and only then sends
Enter as a separate write: AI TUIs (and some REPLs) drop an Enter that arrives glued to a
paste. Waiting happens here, in the IPC handler's or the reactor's thread, never inside a
terminal actor's mailbox, so the tab keeps answering while we wait.

Into a recognised agent (`agent` given: see `outbox`, which decides when to type) Enter comes
at least `ENTER_GAP` after the text (Codex takes a fast burst followed by Enter as a newline),
and the submission is verified: the prompt line that showed the text cleared, or the agent's
state became working (or waiting). If neither shows within `VERIFY_FOR`, one more Enter is sent
-- never the text again -- and the result says whether it was taken (`submitted`).

A send is written whole or reported as not written: a line a canonical-mode tty would cut
(over ~4 KB on Linux) is refused before anything is typed, and the result is ok only after
the tab's writer confirmed every byte (within `SEND_TIMEOUT`; a child that stops reading gets
the rest cancelled and the caller an error that says how much arrived -- a paste cut so still
gets its end marker, and no character is cut in two).
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable

from ...protocol.limits import ASK
from ...terminals.keys import text_keystrokes
from ..errors import TikiError, WaitTimeout
from .writes import LineTooLong, SendIncomplete

POLL = 0.005
ECHO_QUIET = 0.015  # the echo counts as settled after 15 ms without new output
NO_ECHO_WAIT = 0.3  # a child that does not echo at all gets Enter after this long
SEND_TIMEOUT = 20.0  # a send whose bytes the child has not all taken by then is cut off
ENTER_GAP = 0.15  # into an agent: at least this long between the text and its Enter
VERIFY_FOR = 1.5  # into an agent: how long Enter has to show it was taken before one more is sent
VERIFY_POLL = 0.03
TAIL = 12  # characters of the text's last line looked for on the prompt line
ACCEPTED = ("working", "waiting", "exited")  # states that show an agent took the Enter
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class WaitAbandoned(TikiError):
    """Nobody is waiting for the answer any more."""


def _counter(terminal: Any) -> int:
    return terminal.output_counter().get(timeout=ASK)


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


def send_text(terminal: Any, text: str, *, enter: bool = True, name: str = "?",
              timeout: float = SEND_TIMEOUT, literal: bool = False, agent: Any = None,
              gap: bool = False) -> dict[str, Any]:
    """Type `text` (then Enter); `changed` says whether the child reacted at all, `written`
    how many bytes the tab took (all of them, or this raises).

    The text is pasted -- in bracketed-paste markers when the child asked for them, so a
    multi-line prompt reaches an AI CLI as one paste instead of one submission per line --
    unless `literal`: then it is typed key by key, never bracketed, so a program that reads
    keys (vim's `:` commands) sees keystrokes, as with `tmux send-keys -l`. With `agent` (the
    tab's `TabAgent`), Enter is verified: `submitted` and `enter_retries` say how it went;
    with `agent` or `gap` (a peer tab whose program is not recognised) it waits ENTER_GAP."""
    deadline = time.monotonic() + timeout
    limit = terminal.line_limit().get(timeout=ASK)
    if limit is not None:
        longest = max(len(line.encode("utf-8")) for line in _LINE_BREAK.split(text))
        if longest > limit:
            raise LineTooLong(name, longest, limit)
    before = _counter(terminal)
    written = 0
    if text:
        ticket = terminal.write(text_keystrokes(text)) if literal else terminal.paste(text)
        written += _confirm(ticket.get(timeout=ASK), name, deadline, timeout)
    if not enter:
        return {"ok": True, "changed": _wait_change(terminal, before), "written": written}
    typed = time.monotonic()
    settled = wait_for_settle(terminal, before) if text else before
    if agent is None:
        if gap and text:
            time.sleep(max(0.0, typed + ENTER_GAP - time.monotonic()))
        written += _confirm(terminal.write(b"\r").get(timeout=ASK), name, deadline, timeout)
        changed = settled != before or _wait_change(terminal, settled)
        return {"ok": True, "changed": changed, "written": written}
    time.sleep(max(0.0, typed + ENTER_GAP - time.monotonic()))
    retries, submitted = 0, False
    while True:
        mark = _prompt_mark(terminal.visible_rows().get(timeout=ASK), text)
        changes = agent.view.changes
        written += _confirm(terminal.write(b"\r").get(timeout=ASK), name, deadline, timeout)
        submitted = _submitted(terminal, agent, mark, changes)
        if submitted or retries:
            break
        retries += 1  # the Enter was swallowed (or taken as a newline): one more, never the text again
    return {"ok": True, "changed": submitted or settled != before, "written": written,
            "submitted": submitted, "enter_retries": retries}


def _prompt_mark(rows: list[str], text: str) -> tuple[int | None, str, list[str]]:
    """Where the text shows before Enter: (the lowest row holding the end of its last line, that
    end, the rows). The row is None when the text does not show (a paste shown folded)."""
    lines = [line.strip() for line in _LINE_BREAK.split(text) if line.strip()]
    tail = lines[-1][-TAIL:] if lines else ""
    row = next((i for i in range(len(rows) - 1, -1, -1) if tail and tail in rows[i]), None)
    return row, tail, rows


def _submitted(terminal: Any, agent: Any, mark: tuple[int | None, str, list[str]], changes: int) -> bool:
    """Did the agent take the Enter: its state became working/waiting, or the prompt cleared?"""
    row, tail, before = mark
    deadline = time.monotonic() + VERIFY_FOR
    while time.monotonic() < deadline:
        time.sleep(VERIFY_POLL)
        view = agent.view
        if view.changes != changes and view.state in ACCEPTED:
            return True
        rows = terminal.visible_rows().get(timeout=ASK)
        if (row is not None and (row >= len(rows) or tail not in rows[row])) or (row is None and rows != before):
            return True
    return False


def _confirm(ticket: Any, name: str, deadline: float, timeout: float) -> int:
    """Wait until the writer wrote every byte of `ticket`; else cancel the rest and raise."""
    if not ticket.wait(max(0.0, deadline - time.monotonic())):
        ticket.cancel()
    if not ticket.complete:
        raise SendIncomplete(name, ticket.written, ticket.size, timeout,
                             None if ticket.error in (None, "cancelled") else ticket.error, bool(ticket.closing))
    return ticket.written


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
        age = terminal.last_output_age().get(timeout=ASK)
        if age >= idle:
            return time.monotonic() - start
        now = time.monotonic()
        if now >= deadline:
            raise WaitTimeout(f"tab still printing after {timeout_ms} ms (wanted {idle_ms} ms of quiet)")
        time.sleep(min(idle - age, deadline - now, 0.05) + 0.001)
