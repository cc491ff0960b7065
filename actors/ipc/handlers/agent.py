"""IPC handlers for the tab ops that depend on a tab's agent state: send, wait, explain.

- `terminal.send` goes through the tab's outbox (actors/tabs/outbox): into a working agent the
  text is queued and typed once it is idle; the op streams a `queued` event, then answers
  `delivered` when it was typed -- or at once with `queued` when the caller asked not to wait,
  and by default when the caller runs in a tab: a peer blocked in its own send stays
  `working`, so two peers sending to each other would each wait for the other forever.
  A caller that hangs up does not take the text back: it stays queued. An agent that is
  waiting for its user refuses the text, with the screen that shows what it asks.
- `terminal.wait` waits for quiet output (`idle_ms`), or with `until` for an agent state.
- `terminal.explain` is `tiki explain`: the state, the rule that matched and its evidence.
"""

from __future__ import annotations

import time
from typing import Any

from ....protocol.limits import ASK, QUEUE_FOR
from ...errors import TikiError, WaitTimeout
from ...tabs import keyboard
from ..context import OpContext

CLIENT_CHECK = 0.25  # while a send waits its turn, how often we look whether the caller left


def _handle(ctx: OpContext, args: dict[str, Any]) -> Any:
    return ctx.host.workspace.get(args["name"]).get(timeout=ASK)


def send(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    timeout_ms = args.get("timeout_ms", round(keyboard.SEND_TIMEOUT * 1000))
    handle = _handle(ctx, args)
    outbox = handle.terminal.outbox().get(timeout=ASK)
    delivery = outbox.submit(args["text"], enter=args.get("enter", True), now=args.get("now", False),
                             name=handle.name, timeout=timeout_ms / 1000, literal=args.get("literal", False))
    if delivery.queued and not delivery.done:
        view = handle.terminal.agent().get(timeout=ASK).view
        ctx.emit({"event": "queued", "name": handle.name, "state": view.state,
                  "reason": f"{view.rule}: {view.evidence}", "position": outbox.pending()})
        if not args.get("wait", ctx.caller_tab is None):
            return {"name": handle.name, "ok": True, **delivery.summary()}
    deadline = time.monotonic() + QUEUE_FOR + timeout_ms / 1000 + 30
    while not delivery.wait(CLIENT_CHECK):
        if ctx.client_gone() or time.monotonic() > deadline:  # it stays queued: the host types it
            return {"name": handle.name, "ok": True, **delivery.summary()}
    if delivery.error is not None:
        raise delivery.error
    return {"name": handle.name, "ok": True, **delivery.summary()}


def wait(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    idle_ms, timeout_ms = args.get("idle_ms", 1500), args.get("timeout_ms", 60_000)
    handle = _handle(ctx, args)
    until = args.get("until")
    if until is None:
        waited = keyboard.wait_idle(handle.terminal, idle_ms, timeout_ms, gone=ctx.client_gone)
        return {"name": handle.name, "idle": True, "waited_ms": round(waited * 1000)}
    agent = handle.terminal.agent().get(timeout=ASK)
    start = time.monotonic()
    # a tab that exits while we wait for another state will never reach it: stop there
    view = agent.wait_for(lambda v: v.state in (until, "exited"), timeout_ms / 1000, gone=ctx.client_gone)
    if view is None:
        if ctx.client_gone():
            raise keyboard.WaitAbandoned("the client hung up; wait abandoned")
        now = agent.view
        raise WaitTimeout(f"tab '{handle.name}' was not {until} within {timeout_ms} ms; it is {now.state} "
                          f"({now.rule}: {now.evidence})", state=now.state)
    if view.state != until:
        raise TikiError(f"tab '{handle.name}' exited before it was {until} ({view.evidence})", state=view.state)
    return {"name": handle.name, "idle": view.state == "idle", "waited_ms": round((time.monotonic() - start) * 1000),
            "state": view.state, "reason": f"{view.rule}: {view.evidence}"}


def explain(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    handle = _handle(ctx, args)
    agent = handle.terminal.agent().get(timeout=ASK)
    view, now = agent.view, time.monotonic()
    return {
        "name": handle.name, "kind": view.kind, "kind_name": view.kind_name, "identified_by": view.identified_by,
        "command": list(view.command), "state": view.state, "since": view.since_wall(now), "rule": view.rule,
        "description": view.description, "source": view.source, "evidence": view.evidence,
        "last_output_s": None if view.last_output_at is None else round(now - view.last_output_at, 2),
        "recheck_s": None if view.recheck_at is None else round(max(0.0, view.recheck_at - now), 2),
        "screen": view.excerpt(), "rule_errors": agent.rule_errors,
    }
