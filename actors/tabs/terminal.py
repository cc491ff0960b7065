"""One actor per tab: it owns the tab's PTY child and its emulated screen.

Five threads serve a tab. The actor's own thread answers requests (snapshot, read, resize,
restart). A reader, a writer, a notifier (see `terminal_io`) and the agent-state detector
(`terminal_agent`) run under the host's supervisor: a reader that raises is restarted on the
same PTY, and a part that keeps failing marks the tab failed (shown in `status()`) until
`restart()`. Input goes through a queue to the writer, so a child that stops reading can never
block the actor; senders that need to know wait on the write's ticket.

A tab is running until its child process has exited (not merely closed its terminal); closing
it ends every process of the child's session.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from ...protocol.settings import TerminalSettings
from ...terminals import divider
from ...terminals.env import child_env
from ...terminals.foreground import ForegroundCommand
from ...terminals.pty import OutOfDescriptors, PtyProcess, SpawnError, spawn
from ...terminals.screen import Screen
from ..errors import SpawnFailed, SpawnOutOfDescriptors, TabNotRunning
from ..events import ActorFailed, EventBus, TabExited
from ..reclaim import reclaim_after, threads_named
from ..supervisor import SupervisedActor, Supervisor
from .agent_watch import AgentConfig
from .terminal_agent import TerminalAgent
from .terminal_input import TerminalInput
from .terminal_io import TerminalThreads, _ChildExited, _GaveUp
from .terminal_reads import TerminalReads
from .writes import TabFailed, WriteTicket

BUSY_WINDOW = 1.5  # a tab with output in the last 1.5 s is "busy"


@dataclass
class TabSpec:
    """What a terminal actor needs to (re)start its child."""

    tab_id: int
    name: str
    command: list[str]
    cwd: str
    role: str
    token: str
    socket: str
    bin_dir: str | None
    base_env: dict[str, str]


class TerminalActor(TerminalReads, TerminalInput, TerminalAgent, TerminalThreads, SupervisedActor):
    def __init__(self, spec: TabSpec, settings: TerminalSettings, bus: EventBus, *,
                 supervisor: Supervisor | None = None, agent: AgentConfig | None = None) -> None:
        super().__init__()
        self.spec = spec
        self._settings = settings
        self._bus = bus
        # The host's supervisor (the workspace passes it); a private one for a lone actor.
        self._own_supervisor = supervisor is None
        self._supervisor = supervisor if supervisor is not None else Supervisor()
        self._lock = threading.Lock()  # guards the screen and the output counters
        self._screen = Screen(settings.cols, settings.rows, settings.scrollback)
        self._pty: PtyProcess | None = None
        self._generation = 0
        self._exit_code: int | None = None
        self._running = False
        self._failed: str | None = None  # "reader: ValueError: ..." once the supervisor gave up
        self._bytes_read = 0
        self._last_output = 0.0
        # The last output that was not the echo of input (see terminal_io.ECHO_WINDOW): what
        # the agent-state detector counts as the program printing.
        self._last_own_output = 0.0
        self._last_input = 0.0  # when the writer last gave the child input
        self._dirty = threading.Event()
        self._paused = threading.Event()  # the output paused since the last notice (terminal_io)
        self._job_ended = False  # ...and that pause came as the job that printed ended
        self._watchers: tuple[Any, ...] = ()  # rows are styled only while a UI shows this tab
        self._stopping = threading.Event()
        self._writes: queue.Queue[tuple[int, bytes, WriteTicket] | None] = queue.Queue()
        self._init_agent(agent or AgentConfig.default())  # see terminal_agent

    # -- lifecycle -------------------------------------------------------------------------

    def on_start(self) -> None:
        self._supervise("notifier", self._notify_loop)
        self._supervise("writer", self._write_loop)
        self._supervise("detector", self._agent.run, self._stopping)

    def start_child(self) -> int:
        """Spawn the tab's command; raises SpawnFailed with the reason (asked by the workspace,
        so the error reaches whoever created the tab instead of dying inside on_start)."""
        self._spawn()
        return self._pty.pid if self._pty is not None else -1

    def on_stop(self) -> None:
        self._shutdown()

    def on_failure(self, exception_type: Any, exception_value: Any, traceback: Any) -> None:
        super().on_failure(exception_type, exception_value, traceback)
        self._bus.publish(ActorFailed(f"terminal '{self.spec.name}'", repr(exception_value)))
        self._shutdown()

    def _shutdown(self) -> None:
        self._stopping.set()
        self._dirty.set()
        self._agent.wake()
        self._outbox.close("the tab was closed")
        if self._pty is not None:
            self._pty.kill()  # every process of the tab's session, then the PTY
        # Queued input fails first, then the writer's stop mark goes in: draining after it
        # took the mark too, and a writer busy with a write at close then waited for good.
        self._fail_queued_writes("the tab was closed")
        self._writes.put(None)
        self._supervisor.forget_prefix(f"tab:{self.spec.tab_id}.")
        if not self._supervisor.stopping:  # (a host that stops gives everything back at once)
            # The actor's own thread and the tab's: once they end, its memory can go (reclaim).
            ends = [threading.current_thread(), *threads_named(f"tiki-{self._thread_name('')}")]
            self._supervisor.task("reclaim", reclaim_after, ends)
        if self._own_supervisor:
            self._supervisor.stop()

    def _spawn(self) -> None:
        spec = self.spec
        env = child_env(
            spec.base_env, tab=spec.name, token=spec.token, socket=spec.socket, bin_dir=spec.bin_dir
        )
        try:
            pty = spawn(spec.command, cwd=spec.cwd, env=env, cols=self._screen.cols, rows=self._screen.rows)
        except OutOfDescriptors as exc:
            raise SpawnOutOfDescriptors(f"cannot start tab '{spec.name}': {exc}") from None
        except SpawnError as exc:
            raise SpawnFailed(f"cannot start tab '{spec.name}': {exc}") from None
        self._generation += 1
        self._pty, self._running, self._exit_code = pty, True, None
        self._started_at, self._foreground = time.monotonic(), ForegroundCommand(pty.pid)
        self._agent.reset()
        self._supervisor.forget(self._thread_name("reader"))  # a new child starts with a clean record
        self._supervise("reader", self._read_loop, pty, self._generation)

    def restart(self) -> None:
        """Kill the child (and its session) if it still runs and start the command again below
        a divider (the old output stays, in the history); a failed tab is healthy again."""
        old = self._pty
        self._generation += 1  # the old reader's exit notice is ignored from here on
        if old is not None:
            old.kill()
        with self._lock:
            divider.restart(self._screen, divider.label())  # the old output stays above a divider
            self._last_output = self._last_own_output = 0.0
        self._failed = None
        parts = {"notifier": (self._notify_loop,), "writer": (self._write_loop,),
                 "detector": (self._agent.run, self._stopping)}
        for part, body in parts.items():  # a part the supervisor gave up on runs again
            if self._supervisor.state(self._thread_name(part)) == "failed":
                self._supervisor.forget(self._thread_name(part))
                self._supervise(part, *body)
        self._spawn()
        self._dirty.set()

    def set_name(self, name: str) -> None:
        self.spec.name = name

    def on_receive(self, message: Any) -> Any:
        if isinstance(message, _ChildExited) and message.generation == self._generation:
            self._running, self._exit_code = False, message.code
            self._dirty.set()
            self._agent.wake()
            self._bus.publish(TabExited(self.spec.tab_id, self.spec.name, message.code))
        elif isinstance(message, _GaveUp) and message.part == "detector":
            # input and output still work: the tab's state is unknown, not the tab failed
            self._bus.publish(ActorFailed(f"tab '{self.spec.name}' agent-state detector", message.reason))
        elif isinstance(message, _GaveUp) and not self._stopping.is_set():
            self._failed = f"{message.part}: {message.reason}"
            if message.part == "writer":
                self._fail_queued_writes(f"the tab has failed ({self._failed})")
            self._bus.publish(ActorFailed(f"tab '{self.spec.name}' {message.part}", message.reason))
        return None

    # -- requests --------------------------------------------------------------------------

    def _require_running(self) -> None:
        if self._failed is not None:
            raise TabFailed(self.spec.name, self._failed)
        if not self._running:
            raise TabNotRunning(self.spec.name, self._exit_code)

    def write(self, data: bytes, opening: int = 0, closing: bytes = b"") -> WriteTicket:
        """Queue raw input; the returned ticket says when (and how much of) it was written
        (`opening` and `closing`: what input cut short still gets, see `WriteTicket`)."""
        self._require_running()
        ticket = WriteTicket(len(data), opening, closing)
        self._writes.put((self._generation, data, ticket))
        return ticket

    def line_limit(self) -> int | None:
        """The longest line the child's tty takes whole right now (it reads line by line), or
        None when it reads raw input."""
        self._require_running()
        return self._pty.line_limit() if self._pty is not None else None

    def set_colors(self, fg: str | None, bg: str | None) -> None:
        """The default colours of the latest UI's terminal: a program that asks (OSC 10/11) gets them."""
        with self._lock:
            self._screen.colors = (fg, bg)

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = max(2, int(cols)), max(1, int(rows))
        with self._lock:
            if (cols, rows) == (self._screen.cols, self._screen.rows):
                return
            self._screen.resize(cols, rows)
        if self._pty is not None and self._running:
            try:
                self._pty.resize(cols, rows)
            except OSError:
                pass
        self._dirty.set()

    def status(self) -> dict[str, Any]:
        """Running state, activity and failure (None, or which part failed and why), for the
        workspace's tab list."""
        with self._lock:
            busy = self._last_output and time.monotonic() - self._last_output < BUSY_WINDOW
        return {"running": self._running, "exit_code": self._exit_code,
                "activity": "busy" if busy else "idle", "failed": self._failed, "agent": self._agent.view.row(),
                "watched": bool(self._watchers), "unseen": self._agent.unseen}


    def output_counter(self) -> int:
        with self._lock:
            return self._bytes_read

    def last_output_age(self) -> float:
        with self._lock:
            return time.monotonic() - self._last_output if self._last_output else float("inf")

    def pid(self) -> int | None:
        return self._pty.pid if self._pty is not None else None

    def tty_device(self) -> int | None:
        """This tab's PTY as a device number (Linux): how the host knows a caller is in this tab."""
        device = getattr(self._pty, "tty_device", None)
        return device() if device is not None else None

