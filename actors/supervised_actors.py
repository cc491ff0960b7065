"""Supervising actors: the half of the supervisor that watches pykka actors.

An actor the supervisor owns derives from `SupervisedActor`, so an unhandled failure in a
`tell` handler is reported at once with its exception; a death that skips `on_failure` (a
failing `on_start`, a stop nobody asked for) is noticed by a watcher thread that polls. The
owner holds an `ActorSlot`, whose `proxy` is always the current incarnation's, so a restart
is invisible to callers that look the service up each time.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import pykka

if TYPE_CHECKING:
    from .supervisor import Health

WATCH_INTERVAL = 0.5  # how often actors are checked for a death nobody reported
BACKOFF_FIRST, BACKOFF_MAX = 0.05, 2.0  # seconds before restart N: 0.05 * 2**N, capped


class SupervisedActor(pykka.ThreadingActor):
    """Base class for actors the supervisor owns: an unhandled failure is reported at once
    with its exception (the supervisor's watcher also notices deaths that skip `on_failure`,
    such as a failing `on_start`)."""

    def on_failure(self, exception_type: Any, exception_value: Any, tb: Any) -> None:
        _note_actor_failure(self.actor_ref, exception_value)


_failure_lock = threading.Lock()
_actor_watchers: dict[str, Callable[[BaseException], None]] = {}


def _note_actor_failure(ref: pykka.ActorRef[Any], exc: BaseException) -> None:
    with _failure_lock:  # whoever pops the watcher handles the death (this hook or the poller)
        watcher = _actor_watchers.pop(ref.actor_urn, None)
    if watcher is not None:
        watcher(exc)


class ActorSlot:
    """The current incarnation of a supervised actor. Hold the slot, not a proxy: after a
    restart `proxy` is the new actor's."""

    def __init__(self, supervisor: "ActorSupervision", name: str, start: Callable[[], pykka.ActorRef[Any]],
                 restart: bool, on_restart: Callable[[pykka.ActorRef[Any]], None] | None,
                 on_give_up: Callable[[str], None] | None) -> None:
        self.supervisor = supervisor
        self.name = name
        self._start = start
        self.restart = restart
        self.on_restart = on_restart
        self.on_give_up = on_give_up
        self.ref: pykka.ActorRef[Any] = self._launch()
        self._proxy = self.ref.proxy()
        self.released = False
        self._restarting = threading.Lock()

    def _launch(self) -> pykka.ActorRef[Any]:
        ref = self._start()
        with _failure_lock:
            _actor_watchers[ref.actor_urn] = partial(self.supervisor._actor_failed, self, ref)
        return ref

    @property
    def proxy(self) -> Any:
        return self._proxy

    def is_alive(self) -> bool:
        return self.ref.is_alive()

    def release(self) -> None:
        """The owner stops this actor on purpose: it is no longer watched."""
        self.released = True
        with _failure_lock:
            _actor_watchers.pop(self.ref.actor_urn, None)
        self.supervisor._forget_slot(self)

    def relaunch(self) -> None:
        with _failure_lock:
            _actor_watchers.pop(self.ref.actor_urn, None)
        self.ref = self._launch()
        self._proxy = self.ref.proxy()


class ActorSupervision:
    """The actor-watching methods of `Supervisor` (which provides `_lock`, `_slots`,
    `_stopping`, `report`, `describe` and `_entry`)."""

    _lock: threading.Lock
    _slots: list[ActorSlot]
    _stopping: threading.Event
    _watcher: threading.Thread | None

    def report(self, name: str, exc: BaseException, *, restartable: bool = False) -> bool:
        raise NotImplementedError

    def register(self, name: str) -> None:
        raise NotImplementedError

    def _entry(self, name: str) -> Health:
        raise NotImplementedError

    def actor(self, name: str, start: Callable[[], pykka.ActorRef[Any]], *, restart: bool = True,
              on_restart: Callable[[pykka.ActorRef[Any]], None] | None = None,
              on_give_up: Callable[[str], None] | None = None) -> ActorSlot:
        """Start an actor (`start()` returns its ref) and watch it. Subclass `SupervisedActor`
        so a failure is reported with its exception; other deaths are noticed by polling.
        `on_restart(new_ref)` follows a restart; `on_give_up(error)` runs when it is dead for
        good (`restart=False`, or too many restarts)."""
        self.register(name)
        slot = ActorSlot(self, name, start, restart, on_restart, on_give_up)
        with self._lock:
            self._slots.append(slot)
        self._ensure_watcher()
        return slot

    def _forget_slot(self, slot: ActorSlot) -> None:
        with self._lock:
            if slot in self._slots:
                self._slots.remove(slot)

    def _actor_failed(self, slot: ActorSlot, ref: pykka.ActorRef[Any], exc: BaseException) -> None:
        # Called on the dying actor's own thread: the restart happens elsewhere.
        threading.Thread(target=self._handle_death, args=(slot, ref, exc), name="tiki-restart",
                         daemon=True).start()

    def _handle_death(self, slot: ActorSlot, ref: pykka.ActorRef[Any], exc: BaseException) -> None:
        with slot._restarting:
            if slot.released or slot.ref is not ref or self._stopping.is_set():
                return
            ref.actor_stopped.wait(5)  # pykka marks it stopped right after on_failure
            restart = self.report(slot.name, exc, restartable=slot.restart)
            if not restart:
                self._forget_slot(slot)
                if slot.on_give_up is not None:
                    call_quietly(slot.on_give_up, _describe(exc))
                return
            attempts = self._entry(slot.name).restarts
            if self._stopping.wait(min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** max(0, attempts - 1))):
                return
            try:
                slot.relaunch()
            except Exception as again:  # noqa: BLE001 - a factory that fails is a failure too
                self.report(slot.name, again)
                self._forget_slot(slot)
                if slot.on_give_up is not None:
                    call_quietly(slot.on_give_up, _describe(again))
                return
            if slot.on_restart is not None:
                call_quietly(slot.on_restart, slot.ref)

    def _ensure_watcher(self) -> None:
        with self._lock:
            if self._watcher is not None:
                return
            self._watcher = threading.Thread(target=self._watch, name="tiki-supervisor", daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        """Deaths that bypass `on_failure` (a failing `on_start`, a stop nobody asked for)."""
        while not self._stopping.wait(WATCH_INTERVAL):
            self._look_for_deaths()

    def _look_for_deaths(self) -> None:
        # (A call of its own: its locals go when it returns. Kept over the wait, the last slot
        # looked at held a closed tab's actor, and its screen, up to WATCH_INTERVAL longer.)
        with self._lock:
            slots = list(self._slots)
        for slot in slots:
            ref = slot.ref
            if not slot.released and not ref.is_alive():
                with _failure_lock:
                    known = _actor_watchers.pop(ref.actor_urn, None) is not None
                if known:  # not yet handled by a failure report
                    self._handle_death(slot, ref, RuntimeError("the actor stopped unexpectedly"))



def _describe(exc: BaseException) -> str:
    from .supervisor import describe

    return describe(exc)


def call_quietly(callback: Callable[..., Any], *args: Any) -> None:
    try:
        callback(*args)
    except Exception:  # noqa: BLE001 - a give-up hook must not take the supervisor down
        pass
