"""The host's supervisor: every long-lived actor and thread of a host is started through it.

pykka has no supervision: an actor whose `tell` handler raises is stopped (and pykka logs a
traceback), a thread whose target raises simply ends, and the host carries on deaf. The
supervisor closes that hole for the whole class of failures:

- a failure is reported once: one line on the host log (stderr) and one `service_failed`
  entry in the event log, never a traceback storm;
- the piece is restarted (a thread runs its target again, an actor is started again from its
  factory), with a short backoff, at most `MAX_RESTARTS` times in `RESTART_WINDOW` seconds;
  beyond that it is `failed` and its owner is told (a tab is then marked failed and
  restartable by the user);
- callers waiting on a dead actor get pykka's `ActorDeadError` (pykka fails every queued
  request of a stopped actor), which the IPC server turns into an error reply;
- `health()` says, per service, ok / restarted N times / failed, with the last error; `tiki
  status --json` shows it.

Short-lived work (one IPC connection) runs through `task`: a failure there is logged once and
counted under the task's group, nothing is restarted.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

from .supervised_actors import BACKOFF_FIRST, BACKOFF_MAX, ActorSlot, ActorSupervision, SupervisedActor, call_quietly

MAX_RESTARTS = 5  # restarts allowed within RESTART_WINDOW before a service is `failed`
RESTART_WINDOW = 60.0

# pykka logs every unhandled exception with a full traceback at ERROR level; the supervisor
# reports each failure itself, in one line.
logging.getLogger("pykka").addHandler(logging.NullHandler())
logging.getLogger("pykka").propagate = False


@dataclass
class Health:
    state: str = "ok"  # ok | restarted | failed | stopped
    restarts: int = 0
    failures: int = 0
    last_error: str | None = None
    last_failure: float | None = None
    _recent: list[float] = field(default_factory=list)
    _logged: float = 0.0  # when a non-restartable failure of this service was last logged

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "restarts": self.restarts, "failures": self.failures,
                "last_error": self.last_error, "last_failure": self.last_failure}


def describe(exc: BaseException) -> str:
    """One line for a failure: the exception and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    text = f"{type(exc).__name__}: {exc}"
    return (text if len(text) <= 300 else text[:297] + "...") + where


class Supervisor(ActorSupervision):
    def __init__(self, event_log: Any = None, *, stream: TextIO | None = None) -> None:
        self._event_log = event_log
        self._stream = stream
        self._lock = threading.Lock()
        self._health: dict[str, Health] = {}
        self._slots: list[ActorSlot] = []
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None

    # -- reporting -------------------------------------------------------------------------

    def _log(self, name: str, line: str, exc: BaseException | None) -> None:
        stream = self._stream or sys.stderr
        try:
            print(f"tiki host: {name}: {line}", file=stream, flush=True)
        except (OSError, ValueError):
            pass  # a host whose stderr is gone keeps running
        if self._event_log is not None:
            try:
                trace = "".join(traceback.format_exception(exc, limit=6)) if exc is not None else None
                self._event_log.append("service_failed", sender=name, detail=line, trace=trace)
            except Exception:  # noqa: BLE001 - the event log itself may be what fails
                pass

    def _entry(self, name: str) -> Health:
        with self._lock:
            return self._health.setdefault(name, Health())

    def register(self, name: str) -> None:
        """Show `name` in the health report before anything went wrong."""
        self._entry(name)

    def forget(self, name: str) -> None:
        """A service that ended on purpose (a closed tab) leaves the health report."""
        with self._lock:
            self._health.pop(name, None)

    def forget_prefix(self, prefix: str) -> None:
        with self._lock:
            for name in [n for n in self._health if n.startswith(prefix)]:
                del self._health[name]

    def _record(self, name: str, exc: BaseException, restartable: bool) -> tuple[bool, int]:
        """Count a failure; returns (restart it?, restart number)."""
        now = time.time()
        health = self._entry(name)
        with self._lock:
            health.failures += 1
            health.last_error = describe(exc)
            health.last_failure = now
            health._recent = [t for t in health._recent if now - t < RESTART_WINDOW]
            if not restartable or self._stopping.is_set():
                return False, 0
            if len(health._recent) >= MAX_RESTARTS:
                health.state = "failed"
                return False, 0
            health._recent.append(now)
            health.restarts += 1
            health.state = "restarted"
            return True, health.restarts

    def report(self, name: str, exc: BaseException, *, restartable: bool = False) -> bool:
        """A failure in `name`, logged once. Returns whether the caller should restart it."""
        restart, number = self._record(name, exc, restartable)
        if self._stopping.is_set():
            return False
        if restart:
            self._log(name, f"failed: {describe(exc)}; restarting ({number})", exc)
        elif restartable:
            self._log(name, f"failed: {describe(exc)}; gave up after {MAX_RESTARTS} restarts in "
                            f"{RESTART_WINDOW:g} s", exc)
        else:
            # Failures that are not restarted (one connection, one log write) can come in a
            # stream: the first is logged, then at most one line a minute; all are counted.
            health = self._entry(name)
            with self._lock:
                quiet = time.monotonic() - health._logged < RESTART_WINDOW if health._logged else False
                if not quiet:
                    health._logged = time.monotonic()
            if not quiet:
                self._log(name, f"failed: {describe(exc)} ({health.failures} so far)", exc)
        return restart

    def health(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {name: health.to_json() for name, health in sorted(self._health.items())}

    def state(self, name: str) -> str | None:
        with self._lock:
            health = self._health.get(name)
            return health.state if health else None

    # -- threads ---------------------------------------------------------------------------

    def thread(self, name: str, target: Callable[..., Any], *args: Any, restart: bool = True,
               on_give_up: Callable[[str], None] | None = None) -> threading.Thread:
        """Run `target(*args)` on a daemon thread; restart it when it raises. A target that
        returns has ended on purpose. `on_give_up(error)` runs when it failed and will not be
        restarted again (`restart=False`, or too many restarts)."""
        self.register(name)

        def run() -> None:
            attempt = 0
            while not self._stopping.is_set():
                try:
                    target(*args)
                    return
                except BaseException as exc:  # noqa: BLE001 - this is the supervision
                    if not self.report(name, exc, restartable=restart):
                        if on_give_up is not None and not self._stopping.is_set():
                            call_quietly(on_give_up, describe(exc))
                        return
                attempt += 1
                if self._stopping.wait(min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (attempt - 1))):
                    return

        thread = threading.Thread(target=run, name=f"tiki-{name}", daemon=True)
        thread.start()
        return thread

    def task(self, group: str, target: Callable[..., Any], *args: Any) -> threading.Thread:
        """Short-lived work (one connection): a failure is logged and counted under `group`."""
        self.register(group)

        def run() -> None:
            try:
                target(*args)
            except BaseException as exc:  # noqa: BLE001
                self.report(group, exc)

        thread = threading.Thread(target=run, name=f"tiki-{group}", daemon=True)
        thread.start()
        return thread

    # -- actors ----------------------------------------------------------------------------

    # -- lifecycle -------------------------------------------------------------------------

    def stop(self) -> None:
        """The host is stopping: nothing is restarted any more."""
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()


__all__ = ["ActorSlot", "Health", "SupervisedActor", "Supervisor", "describe"]
