"""One actor per tab: it owns the tab's PTY child and its emulated screen.

Three threads serve a tab. The actor's own thread answers requests (snapshot, read, resize,
restart). A reader thread does blocking PTY reads and feeds the screen under a lock, so
output never waits for the mailbox. A notifier thread turns "the screen changed" into at
most ~60 `ScreenChanged` events per second. Writes go through a queue to a writer thread, so
a child that stops reading can never block the actor.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

import pykka

from ..protocol.settings import TerminalSettings
from ..terminals import keys as keymap
from ..terminals.env import child_env
from ..terminals.pty import PtyProcess, SpawnError, spawn
from ..terminals.screen import Screen
from .errors import SpawnFailed, TabNotRunning
from .events import ActorFailed, EventBus, ScreenChanged, TabExited

FRAME_INTERVAL = 1 / 60  # coalesce screen notices to at most ~60 per second
BUSY_WINDOW = 1.5  # a tab with output in the last 1.5 s is "busy"
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


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


class TerminalActor(pykka.ThreadingActor):
    def __init__(self, spec: TabSpec, settings: TerminalSettings, bus: EventBus, supervisor: Any = None) -> None:
        super().__init__()
        self._supervisor = supervisor
        self.spec = spec
        self._settings = settings
        self._bus = bus
        self._lock = threading.Lock()  # guards the screen and the output counters
        self._screen = Screen(settings.cols, settings.rows, settings.scrollback)
        self._pty: PtyProcess | None = None
        self._generation = 0
        self._exit_code: int | None = None
        self._running = False
        self._bytes_read = 0
        self._last_output = 0.0
        self._dirty = threading.Event()
        self._watched = False  # styled rows are built only while a view shows this tab
        self._stopping = threading.Event()
        self._writes: queue.Queue[tuple[int, bytes] | None] = queue.Queue()
        self._threads: list[threading.Thread] = []

    # -- lifecycle -------------------------------------------------------------------------

    def on_start(self) -> None:
        self._start_thread(self._notify_loop, "notify")
        self._start_thread(self._write_loop, "write")

    def start_child(self) -> int:
        """Spawn the tab's command; raises SpawnFailed with the reason (asked by the workspace,
        so the error reaches whoever created the tab instead of dying inside on_start)."""
        self._spawn()
        return self._pty.pid if self._pty is not None else -1

    def on_stop(self) -> None:
        self._shutdown()

    def on_failure(self, exception_type: Any, exception_value: Any, traceback: Any) -> None:
        self._bus.publish(ActorFailed(f"terminal '{self.spec.name}'", repr(exception_value)))
        self._shutdown()

    def _shutdown(self) -> None:
        self._stopping.set()
        self._dirty.set()
        self._writes.put(None)
        if self._pty is not None:
            self._pty.kill()

    def _start_thread(self, target: Any, what: str, *args: Any) -> None:
        thread = threading.Thread(
            target=target, args=args, name=f"tiki-{what}-{self.spec.name}", daemon=True
        )
        thread.start()
        self._threads.append(thread)

    def _spawn(self) -> None:
        spec = self.spec
        env = child_env(
            spec.base_env, tab=spec.name, token=spec.token, socket=spec.socket, bin_dir=spec.bin_dir
        )
        try:
            pty = spawn(spec.command, cwd=spec.cwd, env=env, cols=self._screen.cols, rows=self._screen.rows)
        except SpawnError as exc:
            raise SpawnFailed(f"cannot start tab '{spec.name}': {exc}") from None
        self._generation += 1
        self._pty, self._running, self._exit_code = pty, True, None
        self._start_thread(self._read_loop, "read", pty, self._generation)

    def restart(self) -> None:
        """Kill the child if it still runs and start the command again on a fresh screen."""
        old = self._pty
        self._generation += 1  # the old reader's exit notice is ignored from here on
        if old is not None:
            old.kill()
        with self._lock:
            self._screen = Screen(self._screen.cols, self._screen.rows, self._settings.scrollback)
        self._spawn()
        self._dirty.set()

    def set_name(self, name: str) -> None:
        self.spec.name = name

    # -- threads ---------------------------------------------------------------------------

    def _read_loop(self, pty: PtyProcess, generation: int) -> None:
        while True:
            try:
                data = pty.read(65536)
            except OSError:
                data = b""
            if not data:
                break
            with self._lock:
                if generation != self._generation:
                    return
                replies = self._screen.feed(data)
                self._bytes_read += len(data)
                self._last_output = time.monotonic()
            if replies:  # device-status answers go straight back, ahead of queued input
                self._safe_write(pty, replies)
            self._dirty.set()
        code = pty.wait(timeout=5.0)
        if not self._stopping.is_set():
            try:
                self.actor_ref.tell(_ChildExited(generation, code))
            except pykka.ActorDeadError:
                pass

    def _notify_loop(self) -> None:
        while True:
            self._dirty.wait()
            if self._stopping.is_set():
                return
            self._dirty.clear()
            with self._lock:
                if self._watched:
                    update = self._screen.take_update()
                else:  # styling rows is most of the cost of a busy tab: skip it unseen
                    self._screen.take_dirty()
                    update = None
            self._bus.publish(ScreenChanged(self.spec.tab_id, self.spec.name, update))
            time.sleep(FRAME_INTERVAL)

    def _write_loop(self) -> None:
        while True:
            item = self._writes.get()
            if item is None:
                return
            generation, data = item
            pty = self._pty
            if pty is not None and generation == self._generation:
                self._safe_write(pty, data)

    @staticmethod
    def _safe_write(pty: PtyProcess, data: bytes) -> None:
        try:
            pty.write(data)
        except OSError:
            pass  # the child is gone; the reader reports the exit

    def on_receive(self, message: Any) -> Any:
        if isinstance(message, _ChildExited) and message.generation == self._generation:
            self._running, self._exit_code = False, message.code
            self._dirty.set()
            self._bus.publish(TabExited(self.spec.tab_id, self.spec.name, message.code))
        return None

    # -- requests --------------------------------------------------------------------------

    def _require_running(self) -> None:
        if not self._running:
            raise TabNotRunning(self.spec.name, self._exit_code)

    def write(self, data: bytes) -> None:
        self._require_running()
        self._writes.put((self._generation, data))

    def paste(self, text: str) -> None:
        """Type text; wrapped in bracketed-paste markers when the child asked for them."""
        self._require_running()
        data = text.replace("\r\n", "\r").replace("\n", "\r").encode("utf-8")
        with self._lock:
            bracketed = self._screen.bracketed_paste
        if bracketed:
            data = PASTE_START + data.replace(PASTE_END, b"") + PASTE_END
        self._writes.put((self._generation, data))

    def key(self, name: str) -> None:
        with self._lock:
            app_cursor = self._screen.app_cursor_keys
        data = keymap.key_bytes(name, app_cursor=app_cursor)  # UnknownKey names the valid keys
        self.write(data)

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

    def watch(self, on: bool = True) -> Any:
        """A view starts (or stops) showing this tab: from now on `ScreenChanged` carries the
        changed rows, styled. Returns a full snapshot to start from."""
        with self._lock:
            self._watched = on
            return self._screen.take_update(full=True) if on else None

    def snapshot(self) -> Any:
        with self._lock:
            return self._screen.snapshot()

    def history(self, start: int, stop: int) -> list[Any]:
        with self._lock:
            return self._screen.history_lines(start, stop)

    def read_text(self, lines: int = 40) -> dict[str, Any]:
        with self._lock:
            screen = self._screen
            text = screen.text(lines)
            row, col, _visible = screen.cursor
            return {
                "name": self.spec.name,
                "lines": lines,
                "text": text,
                "cursor": {"row": row, "col": col},
                "title": screen.title,
                "alt_screen": screen.alt_screen,
            }

    def status(self) -> dict[str, Any]:
        """Running state and activity, for the workspace's tab list."""
        with self._lock:
            busy = self._last_output and time.monotonic() - self._last_output < BUSY_WINDOW
        return {"running": self._running, "exit_code": self._exit_code, "activity": "busy" if busy else "idle"}

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


@dataclass(frozen=True)
class _ChildExited:
    generation: int
    code: int | None
