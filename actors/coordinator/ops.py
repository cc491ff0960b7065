"""Wiring the coordinator into a host (`start`: the backend choice, the supervised actor, its
session, and its side of the peers — the first-contact header on sends to a peer tab, and
forgetting the handshakes on reset) and its IPC handlers: `agent.ask` (streams progress
events, then the answer), `agent.status`, `agent.cancel`, `agent.reset`."""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable

from ...protocol import ops
from ..errors import BadArguments, TikiError
from ..ipc.context import OpContext
from .actor import Coordinator
from .backends.choice import BackendChoice
from .events import FINAL, RunEvent
from .limits import ALIVE_EVERY, ASK
from .session import CoordinatorLink


def start(host: Any, backend_factory: Callable[[], Any] | None = None) -> None:
    """The coordinator service ("coordinator") and its backend ("backend") on `host`."""
    factory = backend_factory or BackendChoice(host)
    if isinstance(factory, BackendChoice) and factory.backend_name == "auto":
        threading.Thread(target=factory.decide, name="tiki-backend-probe", daemon=True).start()
    link = CoordinatorLink(send_filter=_peer_header(host), reset_hooks=[_forget_handshakes(host)])
    # the link (the session) outlives a restarted coordinator actor
    slot = host.supervisor.actor("coordinator", lambda: Coordinator.start(host, factory, link))
    host.add_service("coordinator", slot)
    host.add_service("backend", factory)


def _peer_header(host: Any) -> Callable[[str, str, str], str]:
    """The send filter: text typed into a peer tab gets the first-contact header when due.
    Runs on the coordinator's worker; the bot is looked up each time (it may restart, or be
    absent on a host without peers)."""

    def send_filter(tab: str, role: str, text: str) -> str:
        bot = host.service("bot")
        if role != "peer" or bot is None:
            return text
        return bot.prepare_send(tab, text).get(timeout=ASK)

    return send_filter


def _forget_handshakes(host: Any) -> Callable[[], None]:
    """A new coordinator session: every peer is a stranger again."""

    def hook() -> None:
        bot = host.service("bot")
        if bot is not None:
            bot.reset()  # not awaited: the bot may be asking us something at this moment

    return hook


def _coordinator(ctx: OpContext) -> Any:
    coordinator = ctx.host.service("coordinator")
    if coordinator is None:
        raise TikiError("this host has no coordinator")
    return coordinator


def ask(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    prompt = args["prompt"]
    if not prompt.strip():
        raise BadArguments("'prompt' must not be blank")
    allow_shell, new = args.get("allow_shell", False), args.get("new", False)
    coordinator = _coordinator(ctx)
    if new:
        coordinator.reset().get(timeout=ASK)
    events: queue.Queue[RunEvent] = queue.Queue()
    unsubscribe = ctx.host.bus.subscribe(lambda e: events.put(e) if isinstance(e, RunEvent) else None)
    try:
        run_id = coordinator.submit(prompt, source="cli", allow_shell=allow_shell).get(timeout=ASK)
        while True:
            try:
                event: Any = events.get(timeout=ALIVE_EVERY)
            except queue.Empty:
                if not coordinator.actor_ref.is_alive():
                    raise TikiError("the coordinator stopped before the run ended") from None
                event = None
            if event is not None and event.run_id != run_id:
                continue  # another run's progress (the TUI's, a peer's continuation)
            try:
                # While the model is silent, a small event tells us whether the asker is still
                # there: a `tiki ask` interrupted with ctrl+c cancels its run at once.
                ctx.emit(event.to_json() if event is not None else {"kind": "alive", "run_id": run_id})
            except OSError:
                coordinator.cancel(run_id)
                raise
            if isinstance(event, FINAL):
                return event.to_json()
    finally:
        unsubscribe()


def status(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    host = ctx.host
    coordinator = host.service("coordinator")
    backend = host.service("backend")
    bot = host.service("bot")
    state = coordinator.status().get(timeout=ASK) if coordinator is not None else {"state": "absent"}
    peers = bot.states().get(timeout=ASK) if bot is not None else {}
    return {
        "backend": getattr(backend, "backend_name", None),
        "backend_note": getattr(backend, "note", ""),
        "model": state.get("model") or host.settings.coordinator.model,
        "coordinator": {k: state.get(k) for k in ("state", "queued", "turns", "last_turns")},
        "peers": peers,
    }


def cancel(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"cancelled": _coordinator(ctx).cancel(args.get("run_id")).get(timeout=ASK)}


def reset(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    _coordinator(ctx).reset().get(timeout=ASK)
    return {"reset": True}


HANDLERS = {ops.AGENT_ASK: ask, ops.AGENT_STATUS: status, ops.AGENT_CANCEL: cancel, ops.AGENT_RESET: reset}
