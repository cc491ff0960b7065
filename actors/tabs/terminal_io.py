"""The three threads that serve a tab, run under the host's supervisor.

A reader does blocking PTY reads (then takes what else is already there, up to READ_BATCH)
and feeds the screen under the actor's lock, so output never waits for the mailbox; once the PTY is drained it waits (in a pidfd, not a loop) for the child
to really exit and reports the reaped exit code. A writer takes queued input (with a ticket the
sender may wait on) and writes it with flow control (`terminal_writer`). A notifier turns "the screen changed" into
~60 notices per second (`frame_budget`: two may go back to back; none while the program is
inside a synchronized update, DECSET 2026, up to `SYNC_LIMIT`): while UIs watch the tab, one
`ScreenUpdate` (the changed rows, styled once) handed to every watcher -- however many UIs look
at it; an unwatched tab builds no rows at all. Once the output is quiet it also settles the
screen's pushed-out history.

Each runs through `supervisor.thread`: one that raises is logged once and started again -- the
reader on the same PTY, so the tab keeps working. If one keeps failing, the supervisor gives up
and the tab is marked failed (see `TerminalActor.thread_gave_up`); `restart` clears that.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pykka

from ...terminals.pty import PtyProcess
from ..events import ScreenChanged
from ..frame_budget import FrameBudget
from .terminal_writer import TerminalWriter

FRAME_INTERVAL = 1 / 60  # coalesce screen notices to ~60 per second (a pair may go back to back)
# Jump scrolling, as xterm and urxvt do: while more than FLOOD_BYTES arrive between two
# notices, the output scrolls past faster than anyone reads it, and notices slow to one per
# FLOOD_INTERVAL. Styling and sending a whole screen per frame takes the GIL from the reader
# (profiled: ~1/3 of the host's CPU under `seq 1 600000` at 60/s), and every frame costs the UI
# a full repaint. Typed echoes and ordinary output stay far below the threshold: 60/s.
FLOOD_BYTES = 32768
# Output this soon after input is taken for its echo (a shell's line editor redrawing the line
# typed, a TUI its input box), not for the program at work: typing at a prompt read `working`.
# Echoes come within milliseconds; a command the input starts that prints for longer is
# working from then on (and one that holds the terminal is a `job`, printing or not).
ECHO_WINDOW = 0.5
FLOOD_INTERVAL = 1 / 20
# The output paused this long: a flood ended (the reader sees it; a pause of 3 ms is rare
# inside `seq 1 600000`, measured: 0-1 a run, against ~2000 reads).
PAUSE_AFTER = 0.003
# ...or this long once the job that printed hands the terminal back to the shell (its
# foreground process group changed): `seq 1 600000; echo END` is drawn ~2.5 ms sooner (the
# tail in bench/README.md, round 17). Not at once: the shell's own lines (the END, its prompt)
# follow within ~0.2 ms and belong in the same frame.
PAUSE_AFTER_JOB = 0.0005
# A flood's last frame may follow the one before this soon (not the FRAME_INTERVAL of ordinary
# output: ending a flood, the user waits for it). Floods that pause this often get more
# frames, never more than 1/PAUSE_FRAME_GAP a second.
PAUSE_FRAME_GAP = 0.008
SETTLE_AFTER = 0.5  # seconds of quiet before pushed-out history lines are turned into text
# ...or sooner, once the lines waiting hold this many cells: a pushed-out line kept as a pyavt
# object costs ~24 bytes per cell, so a long flood on a wide screen would hold up to the
# scrollback limit of them (10,000 x 300 columns: ~70 MB). Below the budget nothing is read
# early: under a flood most pushed-out lines fall off the scrollback before anyone reads them
# (at 140 columns and 10,000 lines the budget is never reached).
SETTLE_CELLS = 1_500_000
# A PTY hands out ~4 KB per read; under a flood the reader takes what is already there up to
# this much and feeds it at once: the per-feed work (locking, decoding, scanning, waking the
# notifier) is paid once per batch, ~25% more throughput.
READ_BATCH = 65536
REPLY_TIMEOUT = 1.0  # a device-status reply the child does not take within 1 s is dropped


class TerminalThreads(TerminalWriter):
    """Mixed into `TerminalActor`: the thread bodies and how they are started."""

    _lock: threading.Lock
    _screen: Any
    _generation: int
    _stopping: threading.Event
    _dirty: threading.Event
    _paused: threading.Event
    _job_ended: bool

    def _thread_name(self, part: str) -> str:
        return f"tab:{self.spec.tab_id}.{part}"  # type: ignore[attr-defined]

    def _supervise(self, part: str, target: Any, *args: Any) -> None:
        self._supervisor.thread(  # type: ignore[attr-defined]
            self._thread_name(part), target, *args, restart=True,
            on_give_up=lambda reason, part=part: self._gave_up(part, reason))

    def _gave_up(self, part: str, reason: str) -> None:
        # On the failing thread: the actor records it in its own mailbox.
        try:
            self.actor_ref.tell(_GaveUp(part, reason))  # type: ignore[attr-defined]
        except pykka.ActorDeadError:
            pass

    # -- reader ----------------------------------------------------------------------------

    def _read_loop(self, pty: PtyProcess, generation: int) -> None:
        drain = getattr(pty, "read_ready", None)
        paused = getattr(pty, "output_within", None)
        front = getattr(pty, "foreground_group", None)
        group = front() if front is not None else None
        seen = time.monotonic()  # when the last output was read
        pause = PAUSE_AFTER
        while True:
            # A pause counts from the last read, not from the end of feeding it: the flush of a
            # flood's held lines that a prompt sets off may take longer than the pause.
            if front is not None:
                group, was = front(), group
                if group != was:  # a job ended (or began): what it printed is all there
                    pause = PAUSE_AFTER_JOB
            if paused is not None and not paused(max(0.0, pause - (time.monotonic() - seen))):
                self._job_ended, pause = pause == PAUSE_AFTER_JOB, PAUSE_AFTER
                self._paused.set()  # (a flood that ends is drawn now: `_jump_scroll`)
            try:
                data = pty.read(READ_BATCH)
            except OSError:
                data = b""
            if not data:
                break
            while drain is not None and len(data) < READ_BATCH:  # what else is there already
                more = drain(READ_BATCH - len(data))
                if not more:
                    break
                data += more
            seen = time.monotonic()
            with self._lock:
                if generation != self._generation:
                    return
                replies = self._screen.feed(data)
                self._bytes_read += len(data)  # type: ignore[attr-defined]
                self._last_output = now = time.monotonic()  # type: ignore[attr-defined]
                if now - self._last_input > ECHO_WINDOW:  # type: ignore[attr-defined]
                    self._last_own_output = now  # type: ignore[attr-defined]
            if replies:  # device-status answers go straight back, ahead of queued input
                self._safe_write(pty, replies, REPLY_TIMEOUT)
            self._dirty.set()
            self._agent.wake()  # type: ignore[attr-defined]  # the detector looks again soon
        # The PTY is drained or closed, but a child that closed its stdio may run on: the tab
        # is running until the process exits (woken by its pidfd, or by kill()).
        code = pty.wait()
        if not self._stopping.is_set() and code is not None:
            try:
                self.actor_ref.tell(_ChildExited(generation, code))  # type: ignore[attr-defined]
            except pykka.ActorDeadError:
                pass

    # -- notifier --------------------------------------------------------------------------

    def _notify_loop(self) -> None:
        seen = self._bytes_read  # type: ignore[attr-defined]
        pace = FrameBudget(1 / FRAME_INTERVAL)
        early = False  # a frame of this flood went at a pause, and the flood went on
        while True:
            changed = self._dirty.wait(SETTLE_AFTER if self._screen.unsettled else None)
            if self._stopping.is_set():
                return
            if not changed:  # quiet: read the text of the lines a flood pushed out
                with self._lock:
                    self._screen.settle()
                continue
            time.sleep(pace.wait())  # (what else changes meanwhile goes in the same frame)
            self._dirty.clear()
            with self._lock:  # (after the clear: the end of the update, fed from now on, sets it again)
                held = self._screen.sync_hold(time.monotonic())
            if held > 0:  # the program is half-way through a synchronized update: not shown yet
                self._dirty.wait(held)
                self._dirty.set()  # (a frame is owed either way)
                continue
            self._paused.clear()  # a pause from now on may end a flood
            with self._lock:
                if self._screen.unsettled * self._screen.cols > SETTLE_CELLS:
                    self._screen.settle()
                watchers = self._watchers  # type: ignore[attr-defined]
                if watchers:
                    update = self._screen.take_update()
                else:  # styling rows is most of the cost of a busy tab: skip it unseen
                    self._screen.take_dirty()
                    update = None
            for watcher in watchers:
                try:
                    watcher(update)
                except Exception as exc:  # noqa: BLE001 - one broken watcher must not stop the tab's screen
                    self._supervisor.report(self._thread_name("watcher"), exc)  # type: ignore[attr-defined]
            spec = self.spec  # type: ignore[attr-defined]
            self._bus.publish(ScreenChanged(spec.tab_id, spec.name, None))  # type: ignore[attr-defined]
            pace.spend()
            read, seen = self._bytes_read - seen, self._bytes_read  # type: ignore[attr-defined]
            if read > FLOOD_BYTES:
                # A flood that went on after a pause drawn early is not drawn early again
                # until it ends, but at its job's end: a writer descheduled on a busy machine
                # pauses all the time, and a frame at each pause took more of the CPU it
                # lacked (seq beside three busy cores: 41 frames a second, 22 idle).
                early = self._jump_scroll(time.monotonic() + FLOOD_INTERVAL, patient=early) or early
            else:
                early = False

    def _jump_scroll(self, until: float, patient: bool = False) -> bool:
        """Wait until `until` while output keeps coming; the moment it pauses (the flood ended:
        where it stopped is what the user waits to see) the frame goes, though not sooner than
        PAUSE_FRAME_GAP after the last. The reader says so PAUSE_AFTER s into the pause; where
        it cannot tell (no `output_within`), a look every FRAME_INTERVAL / 3 s finds no new bytes.
        `patient`: only the job's end ends the wait early. True when it ended early."""
        time.sleep(PAUSE_FRAME_GAP)
        while not self._stopping.is_set():
            left = until - time.monotonic()
            if left <= 0:
                return False
            before = self._bytes_read  # type: ignore[attr-defined]
            paused = self._paused.wait(min(left, FRAME_INTERVAL / 3))
            if paused and (self._job_ended or not patient):
                return True
            if paused:
                self._paused.clear()  # (a pause the flood may go on after: the next one counts)
            elif self._bytes_read == before and not patient:  # type: ignore[attr-defined]
                return True
        return False

    @staticmethod
    def _safe_write(pty: PtyProcess, data: bytes, timeout: float | None = None) -> None:
        try:
            pty.write(data, timeout)
        except OSError:
            pass  # the child is gone; the reader reports the exit


class _ChildExited:
    __slots__ = ("generation", "code")

    def __init__(self, generation: int, code: int | None) -> None:
        self.generation, self.code = generation, code


class _GaveUp:
    __slots__ = ("part", "reason")

    def __init__(self, part: str, reason: str) -> None:
        self.part, self.reason = part, reason
