"""Input to a tab: the write ticket a sender waits on, and the refusals a send can get.

Writes to a tab go through its writer thread (a child that stops reading must never block the
actor). A `WriteTicket` is how a sender learns what became of its bytes: the writer counts what
the PTY accepted and marks the ticket done, failed, or cancelled when the sender gave up
waiting -- so a send is reported ok only when every byte was written (issue 8, item 8).
"""

from __future__ import annotations

import threading

from ...protocol import ipc
from ..errors import TikiError


class WriteTicket:
    def __init__(self, size: int, opening: int = 0, closing: bytes = b"") -> None:
        self.size = size
        # Input cut short still ends whole (`TerminalWriter._close_cut`): its first `opening`
        # bytes, then `closing` -- a paste's start and end markers, so the program is not
        # left inside a paste -- and no character is cut in two.
        self.opening, self.closing = opening, closing
        self.written = 0
        self.error: str | None = None
        self._cancelled = threading.Event()
        self._done = threading.Event()

    # -- the writer's side -------------------------------------------------------------------

    def progress(self, count: int) -> None:
        self.written += count

    def finish(self, error: str | None = None) -> None:
        if not self._done.is_set():
            self.error = error
            self._done.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    # -- the sender's side -------------------------------------------------------------------

    def wait(self, timeout: float | None) -> bool:
        """True once the writer is done with this ticket (all written, failed or cancelled)."""
        return self._done.wait(timeout)

    def cancel(self, settle: float = 1.0) -> int:
        """Stop writing what is left; returns the bytes written, final once the writer saw it."""
        self._cancelled.set()
        self._done.wait(settle)
        return self.written

    @property
    def complete(self) -> bool:
        return self._done.is_set() and self.error is None and self.written == self.size


class TabFailed(TikiError):
    """The tab's reader/writer/notifier kept failing and the supervisor gave up on it."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"tab '{name}' has failed ({reason}); restart it with "
                         f"`tiki terminal-restart {name}` or from the TUI", failed=reason)


class LineTooLong(TikiError):
    """A canonical-mode tty would cut the line: refused before anything is typed."""

    def __init__(self, name: str, length: int, limit: int) -> None:
        super().__init__(
            f"refused: the program in tab '{name}' reads line by line (canonical tty mode), which "
            f"keeps at most {limit} bytes of one line; this text has a line of {length} bytes and "
            f"would arrive cut. Send lines of at most {limit} bytes, or save the text to a file "
            f"and pass the program its path. Nothing was typed.",
            line_bytes=length, limit=limit, written=0)


class SendIncomplete(TikiError):
    """The child stopped taking input: part of the text was written, the rest was dropped."""

    code = ipc.TIMEOUT

    def __init__(self, name: str, written: int, size: int, waited: float, error: str | None,
                 closed: bool = False) -> None:
        why = error or f"the program in it did not read its input for {waited:.0f} s"
        closing = (" It was a paste: the paste was closed where it was cut (the program gets its end "
                   "marker when it reads again, so what is typed later is not taken as pasted)."
                   if closed and written else "")
        super().__init__(
            f"only {written} of {size} bytes reached tab '{name}' ({why}); the rest was not sent.{closing} "
            f"Check what the program is doing (`tiki terminal-read {name}`) and send again.",
            written=written, size=size)
