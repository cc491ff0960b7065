"""Sends to a tab, typed one at a time and, for an agent, at the right moment (issue 12).

Every text typed into a tab by a sender -- `tiki terminal-send` (from outside or from a peer's
own tab), the coordinator's `send_to_terminal`, the TUI's CHT line -- goes through the tab's
`Outbox`, so two senders never interleave their text and Enter. Typing itself is
`keyboard.send_text` (the one typing policy), run on a worker thread that exists while the
outbox has something to type.

When the tab's program is a recognised agent (its kind is not the generic `shell`):
- `waiting` (a permission prompt, a question, a sign-in): the send is refused at once with the
  screen rows that show what it waits for; nothing is typed (an Enter would pick a menu item).
- `working` or `starting`, other texts already waiting their turn, or no verdict newer than
  the last text typed (the agent may be working on it unseen): the text is queued and
  typed once the agent is `idle` (or quiet and unrecognised: `unknown`) -- never with Escape
  first -- in order, each after the previous one was submitted and the agent is idle again.
  Bounded: `QUEUE_MAX` texts, each waits at most `QUEUE_FOR` seconds (protocol/limits).
- `now=True` types at once, ahead of the queue, whatever the state.
Any other program gets the text at once, as a person typing ahead would (in a peer tab, with
the same pause before Enter as an agent gets; see `keyboard`) -- except that a peer-role tab
`waiting` for its user is refused as above whatever its program's kind: the text and Enter
would answer its prompt. (A shell-role tab's sends are the user's or consented to.)
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from typing import Any

import pykka

from ...protocol.limits import QUEUE_FOR, QUEUE_MAX
from ..errors import TabNotRunning, TikiError
from . import keyboard
from .agent_watch import AgentView, TabAgent

HOLD = ("working", "starting", "waiting")  # a queued text waits while the agent is in one of these
FRESH = 0.3  # a queued text needs a verdict at least this much newer than the last text typed
POKE = 0.5  # while a text waits, the detector is asked to look again this often
_ids = itertools.count(1)


class PeerWaiting(TikiError):
    """The agent asks its user something: a message typed now would answer it."""

    def __init__(self, name: str, view: AgentView) -> None:
        screen = view.excerpt()
        super().__init__(
            f"not sent: tab '{name}' is waiting for its user ({view.rule}), so text typed now would answer "
            f"it. It shows:\n{screen}\nAnswer it in the tab (or `tiki terminal-key {name} ...`), then send "
            f"again; or send with --now to type it anyway.", tab=name, state="waiting", screen=screen)
        self.tab, self.screen = name, screen


class QueueFull(TikiError):
    def __init__(self, name: str, count: int) -> None:
        super().__init__(f"not sent: {count} texts already wait for tab '{name}' to be idle; wait for them "
                         f"(`tiki terminal-wait {name} --until idle`) or send with --now", queued=count)


class QueueExpired(TikiError):
    def __init__(self, name: str, state: str, waited: float) -> None:
        super().__init__(f"not sent: tab '{name}' was still {state} after {waited:.0f} s; the text was dropped "
                         f"without being typed", state=state)


class Delivery:
    """One send: `queued` says it had to wait its turn; `wait()` until it was typed or failed."""

    def __init__(self, text: str, enter: bool, now: bool, name: str, timeout: float, queued: bool,
                 literal: bool = False) -> None:
        self.id = next(_ids)
        self.text, self.enter, self.now, self.name, self.timeout = text, enter, now, name, timeout
        self.literal = literal  # typed key by key, never pasted (see keyboard.send_text)
        self.queued = queued
        self.created = time.monotonic()
        self.state = "queued" if queued else "typing"  # -> delivered | failed
        self.result: dict[str, Any] = {}
        self.error: TikiError | None = None
        self.typed_at: float | None = None
        self._done = threading.Event()

    def wait(self, timeout: float | None) -> bool:
        return self._done.wait(timeout)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def finish(self, result: dict[str, Any] | None = None, error: TikiError | None = None) -> None:
        self.result, self.error = result or {}, error
        self.state = "failed" if error else "delivered"
        self._done.set()

    def summary(self) -> dict[str, Any]:
        """What the sender is told: delivered (after how long in the queue), with the typing's result."""
        waited = (self.typed_at or time.monotonic()) - self.created
        return {**self.result, "delivery": self.state if self.done else "queued",
                "queued_ms": round(waited * 1000) if self.queued else 0}


class Outbox:
    def __init__(self, actor: Any, agent: TabAgent, supervisor: Any) -> None:
        self._actor = actor
        self._agent = agent
        self._supervisor = supervisor
        self._lock = threading.Lock()
        self._items: deque[Delivery] = deque()
        self._working = False
        self._closed: str | None = None
        self._last_typed = 0.0

    def submit(self, text: str, *, enter: bool = True, now: bool = False, name: str = "?",
               timeout: float = keyboard.SEND_TIMEOUT, literal: bool = False) -> Delivery:
        """Queue `text` for typing (see the module docstring); raises PeerWaiting, QueueFull."""
        view = self._agent.view
        agentic = view.kind != "shell"
        with self._lock:
            if self._closed:
                raise TikiError(f"not sent: {self._closed}")
            if view.state == "exited" and not now:
                raise TabNotRunning(name, self._actor._exit_code)
            # A peer tab's text ends with Enter, which answers whatever it asks, even when its
            # program is only recognised as a shell (`read -p`): refused too, whatever the kind.
            if (agentic or self._actor.spec.role == "peer") and not now and view.state == "waiting":
                raise PeerWaiting(name, view)
            waiting_turn = sum(1 for item in self._items if not item.now)
            # A verdict from before the last text was typed says nothing about the agent now: it
            # may be working on that text while its detector has not looked yet (seen in CI).
            stale = self._last_typed > 0 and (view.evaluated_at or 0.0) < self._last_typed + FRESH
            hold = agentic and not now and (view.state in HOLD or stale or waiting_turn > 0 or self._working)
            if hold and waiting_turn >= QUEUE_MAX:
                raise QueueFull(name, waiting_turn)
            delivery = Delivery(text, enter, now, name, timeout, hold, literal)
            if now:  # ahead of every text still waiting for its turn
                position = next((i for i, item in enumerate(self._items) if not item.now), len(self._items))
                self._items.insert(position, delivery)
            else:
                self._items.append(delivery)
            if not self._working:
                self._working = True
                self._supervisor.task(f"tab:{self._actor.spec.tab_id}.outbox", self._work)
        return delivery

    def pending(self) -> int:
        with self._lock:
            return len(self._items)

    def close(self, reason: str) -> None:
        with self._lock:
            self._closed = reason
            items, self._items = list(self._items), deque()
        for item in items:
            item.finish(error=TikiError(f"not sent: {reason}"))

    # -- the worker ------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._items or self._closed:
                    self._working = False
                    return
                item = self._items[0]
            try:
                if item.queued:
                    self._await_turn(item)
                item.typed_at = time.monotonic()
                agentic = self._agent.view.kind != "shell"
                result = keyboard.send_text(self._actor.actor_ref.proxy(), item.text, enter=item.enter,
                                            name=item.name, timeout=item.timeout, literal=item.literal,
                                            agent=self._agent if agentic else None,
                                            gap=self._actor.spec.role == "peer")
                self._last_typed = time.monotonic()
                self._pop(item)
                item.finish(result)
            except TikiError as exc:
                self._pop(item)
                item.finish(error=exc)
            except pykka.ActorDeadError:
                self._pop(item)
                item.finish(error=TikiError(f"not sent: tab '{item.name}' is gone"))
            except Exception as exc:  # noqa: BLE001 - logged once; the sender hears of it; the rest go on
                self._pop(item)
                item.finish(error=TikiError(f"not sent: {type(exc).__name__}: {exc}"))
                self._supervisor.report(f"tab:{self._actor.spec.tab_id}.outbox", exc)

    def _pop(self, item: Delivery) -> None:
        with self._lock:
            if self._items and self._items[0] is item:
                self._items.popleft()

    def _await_turn(self, item: Delivery) -> None:
        """Until the agent is ready for `item` (a fresh verdict of idle or unknown), else raise."""
        fresh_after = self._last_typed + FRESH

        def ready(view: AgentView) -> bool:
            return view.state not in HOLD and (view.evaluated_at or 0.0) >= fresh_after or bool(self._closed)

        deadline = item.created + QUEUE_FOR
        while True:
            left = deadline - time.monotonic()
            view = self._agent.wait_for(ready, max(0.0, min(left, POKE)))
            if self._closed:
                raise TikiError(f"not sent: {self._closed}")
            if view is not None:
                if view.state == "exited":
                    raise TabNotRunning(item.name, self._actor._exit_code)
                return
            if left <= POKE:
                raise QueueExpired(item.name, self._agent.view.state, time.monotonic() - item.created)
            self._agent.wake()  # a verdict newer than the last text typed, even on a still screen
