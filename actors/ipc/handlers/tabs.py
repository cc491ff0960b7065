"""IPC handlers for tabs: list, new, close, rename, restart, read, cells, key (send, wait and explain,
which depend on the tab's agent state, are in `agent`).

Arguments arrive checked against their schema in `protocol.ops` (types, bounds, no unknown
keys); what is left here is what only the host can judge (a tab's name exists, a key name).
"""

from __future__ import annotations

from typing import Any

from ....protocol import ops
from ....protocol.limits import ASK
from ...errors import BadArguments
from ..context import OpContext
from .agent import explain, send, wait


def _handle(ctx: OpContext, args: dict[str, Any]) -> Any:
    return ctx.host.workspace.get(args["name"]).get(timeout=ASK)


def list_terminals(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    tabs = ctx.host.workspace.list_tabs().get(timeout=ASK)
    return {"terminals": [tab.to_json() for tab in tabs]}


def new(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    command = args.get("command")
    if command is not None and not command:
        raise BadArguments("'command' must be a non-empty list of strings (argv), or null for the shell")
    tab = ctx.host.workspace.create_tab(args["name"], command, args.get("cwd"), args.get("role")).get(timeout=ASK)
    return tab.to_json()


def close(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    name = _handle(ctx, args).name
    ctx.host.workspace.close_tab(name).get(timeout=ASK)
    return {"closed": name}


def rename(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.host.workspace.rename_tab(args["name"], args["new_name"]).get(timeout=ASK).to_json()


def restart(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.host.workspace.restart_tab(args["name"]).get(timeout=ASK).to_json()


def read(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return _handle(ctx, args).terminal.read_text(args.get("lines", 40)).get(timeout=ASK)


def cells(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    handle = _handle(ctx, args)
    return {"name": handle.name, **handle.terminal.cells().get(timeout=ASK)}


def key(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    keys = args["keys"]
    from ....terminals.keys import UnknownKey, key_bytes

    for name in keys:  # check them all before sending any, so a typo sends nothing
        try:
            key_bytes(name)
        except UnknownKey as exc:
            raise BadArguments(str(exc)) from None
    handle = _handle(ctx, args)
    for name in keys:
        handle.terminal.key(name).get(timeout=ASK)
    return {"name": handle.name, "sent": keys}


HANDLERS = {
    ops.TERMINAL_LIST: list_terminals, ops.TERMINAL_NEW: new, ops.TERMINAL_CLOSE: close,
    ops.TERMINAL_RENAME: rename, ops.TERMINAL_RESTART: restart, ops.TERMINAL_READ: read, ops.TERMINAL_CELLS: cells,
    ops.TERMINAL_SEND: send, ops.TERMINAL_KEY: key, ops.TERMINAL_WAIT: wait, ops.TERMINAL_EXPLAIN: explain,
}
