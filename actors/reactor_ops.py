"""Wiring the coordinator into a host (`start`: the backend choice, the supervised actor and
its session) and its IPC handlers: `agent.ask` (streams progress events, then the answer),
`agent.status`, `agent.cancel`, `agent.reset`."""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable

from ..protocol import ops
from .backend_choice import BackendChoice
from .errors import BadArguments, TikiError
from .ipc.server import OpContext
from .reactor import CoordinatorLink, ReactorActor
from .reactor_events import FINAL, RunEvent
from ..protocol.limits import ASK

ALIVE_EVERY = 1.0  # seconds between liveness probes of a silent `agent.ask` stream


def start(host: Any, backend_factory: Callable[[], Any] | None = None) -> None:
    """The coordinator service ("reactor") and its backend ("backend") on `host`."""
    factory = backend_factory or BackendChoice(host)
    if isinstance(factory, BackendChoice) and factory.backend_name == "auto":
        threading.Thread(target=factory.decide, name="tiki-backend-probe", daemon=True).start()
    link = CoordinatorLink()  # the session outlives a restarted coordinator actor
    slot = host.supervisor.actor("coordinator", lambda: ReactorActor.start(host, factory, link))
    host.add_service("reactor", slot)
    host.add_service("backend", factory)


def cancel(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"cancelled": _reactor(ctx).cancel(args.get("run_id")).get(timeout=ASK)}


def reset(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    _reactor(ctx).reset().get(timeout=ASK)
    return {"reset": True}


def _reactor(ctx: OpContext) -> Any:
    reactor = ctx.host.service("reactor")
    if reactor is None:
        raise TikiError("this host has no coordinator")
    return reactor


def ask(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    prompt = args["prompt"]
    if not prompt.strip():
        raise BadArguments("'prompt' must not be blank")
    allow_shell = args.get("allow_shell", False)
    reactor = _reactor(ctx)
    events: queue.Queue[RunEvent] = queue.Queue()
    unsubscribe = ctx.host.bus.subscribe(lambda e: events.put(e) if isinstance(e, RunEvent) else None)
    try:
        run_id = reactor.submit(prompt, source="cli", allow_shell=allow_shell).get(timeout=ASK)
        while True:
            try:
                event: Any = events.get(timeout=ALIVE_EVERY)
            except queue.Empty:
                if not reactor.actor_ref.is_alive():
                    raise TikiError("the coordinator stopped before the run ended") from None
                event = None
            if event is not None and event.run_id != run_id:
                continue  # another run's progress (the TUI's, a peer's continuation)
            try:
                # While the model is silent, a small event tells us whether the asker is still
                # there: a `tiki ask` interrupted with ctrl+c cancels its run at once.
                ctx.emit(event.to_json() if event is not None else {"kind": "alive", "run_id": run_id})
            except OSError:
                reactor.cancel(run_id)
                raise
            if isinstance(event, FINAL):
                return event.to_json()
    finally:
        unsubscribe()


def status(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    host = ctx.host
    reactor = host.service("reactor")
    backend = host.service("backend")
    bot = host.service("bot")
    reactor_state = reactor.status().get(timeout=ASK) if reactor is not None else {"state": "absent"}
    peers = bot.states().get(timeout=ASK) if bot is not None else {}
    return {
        "backend": getattr(backend, "backend_name", None),
        "backend_note": getattr(backend, "note", ""),
        "model": reactor_state.get("model") or host.settings.reactor.model,
        "reactor": {k: reactor_state.get(k) for k in ("state", "queued", "turns")},
        "peers": peers,
    }


HANDLERS = {ops.AGENT_ASK: ask, ops.AGENT_STATUS: status, ops.AGENT_CANCEL: cancel, ops.AGENT_RESET: reset}
