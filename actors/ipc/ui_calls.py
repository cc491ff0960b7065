"""A one-request op that an attached UI sends over its session (`call`: what the command line
would send on a connection of its own, such as terminal.new or shutdown), run as the host
runs it and answered with a `reply` event. A bad call gets its error in the reply; the session
survives every call."""

from __future__ import annotations

import traceback
from typing import Any

import pykka

from ...protocol import ipc
from ...protocol.schema import SchemaError, check
from ..errors import TikiError
from .context import OpContext


def run_call(host: Any, message: dict[str, Any], label: str, peer: Any, after: list[Any]) -> dict[str, Any]:
    """The `reply` to the UI's `call` message; what the op leaves to do once it is sent goes in `after`."""
    from ..host import HANDLERS  # the host's op table (imported late: the host imports us)

    ref, name, args = message["ref"], message["op"], message.get("args") or {}
    entry = HANDLERS.get(name)
    try:
        if entry is None:
            raise TikiError(f"unknown op {ipc.clip(name, 80)!r}; known ops: {', '.join(sorted(HANDLERS))}")
        op, handler = entry
        if op.long:
            raise TikiError(f"{name} holds its connection: send it on a connection of its own")
        check(op.args, args)
        ctx = OpContext(host, None, _no_events, label, after, peer=peer)
        return {"kind": "reply", "ref": ref, "ok": True, "result": handler(ctx, args)}
    except SchemaError as exc:
        return _failed(ref, ipc.BAD_REQUEST, f"bad arguments for {name}: {exc}")
    except TikiError as exc:
        return _failed(ref, exc.code, exc.message)
    except (pykka.ActorDeadError, pykka.Timeout) as exc:
        return _failed(ref, ipc.INTERNAL, f"{name}: a part of the host did not answer ({type(exc).__name__})")
    except Exception as exc:  # noqa: BLE001 - the session survives every bad call
        host.event_log.append("internal_error", detail=f"{name} (UI): {exc!r}", trace=traceback.format_exc(limit=8))
        return _failed(ref, ipc.INTERNAL, f"{name} failed: {exc!r}")


def _no_events(event: dict[str, Any]) -> None:
    raise RuntimeError("an op called through a UI session cannot stream")


def _failed(ref: int, code: str, message: str) -> dict[str, Any]:
    return {"kind": "reply", "ref": ref, "ok": False, "error": {"code": code, "message": ipc.clip(message)}}
