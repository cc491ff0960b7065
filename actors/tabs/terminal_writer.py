"""A tab's writer thread (mixed into `TerminalThreads`): queued input written to the PTY in
chunks, with flow control -- a child that stops reading gets partial writes, counted on the
sender's `WriteTicket`, never a blocked actor -- and cancellation looked at between chunks.
Input cut short still ends whole (`_close_cut`)."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from .writes import WriteTicket

WRITE_CHUNK = 16384  # the writer looks at cancellation between chunks
WRITE_POLL = 0.25  # seconds one chunk may wait for the child before cancellation is checked


class TerminalWriter:
    _generation: int
    _stopping: threading.Event
    _writes: "queue.Queue[tuple[int, bytes, WriteTicket] | None]"

    def _write_loop(self) -> None:
        while True:
            item = self._writes.get()
            if item is None:
                return
            generation, data, ticket = item
            try:
                self._write_one(generation, data, ticket)
            except BaseException as exc:
                ticket.finish(f"the tab's writer failed: {type(exc).__name__}: {exc}")
                raise  # the supervisor logs it and starts the writer again

    def _write_one(self, generation: int, data: bytes, ticket: WriteTicket) -> None:
        pty = self._pty  # type: ignore[attr-defined]
        if pty is None or generation != self._generation:
            ticket.finish("the tab was restarted before this input was written")
            return
        view = memoryview(data)
        while ticket.written < len(data):
            if ticket.cancelled or self._stopping.is_set():
                ticket.finish("cancelled")
                if not self._stopping.is_set():
                    self._close_cut(pty, generation, view, ticket)
                return
            chunk = view[ticket.written:ticket.written + WRITE_CHUNK]
            # (stamped before the write, or the reader could take the echo before the stamp,
            # and after it, for a write that waited on a child slow to read)
            self._last_input = time.monotonic()  # type: ignore[attr-defined]
            try:
                ticket.progress(pty.write(chunk, WRITE_POLL))
                self._last_input = time.monotonic()  # type: ignore[attr-defined]
                self._input_given(self._last_input)  # type: ignore[attr-defined]
            except OSError as exc:
                ticket.finish(f"the tab's child is gone ({exc.strerror or exc})")
                return
        ticket.finish()

    def _close_cut(self, pty: Any, generation: int, data: memoryview, ticket: WriteTicket) -> None:
        """Input cut short ends whole: the rest of a character or of the opening cut in two,
        then the closing (a paste's end marker). Written before anything queued after it, as
        soon as the program reads again; given up when the tab stops or restarts."""
        if not ticket.written:
            return  # nothing went: nothing to close
        end = max(ticket.written, ticket.opening)
        while end < len(data) and 0x80 <= data[end] < 0xC0:  # a UTF-8 continuation byte
            end += 1
        rest = memoryview(bytes(data[ticket.written:end]) + ticket.closing)
        done = 0
        while done < len(rest) and not self._stopping.is_set() and generation == self._generation:
            try:
                done += pty.write(rest[done:], WRITE_POLL)
            except OSError:
                return  # the child is gone; the reader reports the exit

    def _fail_queued_writes(self, reason: str) -> None:
        stop = False
        while True:
            try:
                item = self._writes.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[2].finish(reason)
            else:
                stop = True
        if stop:  # the writer's stop mark stays: without it the writer waits in `get` for good
            self._writes.put(None)
