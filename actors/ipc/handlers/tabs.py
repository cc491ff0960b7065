"""IPC ops on tabs: list, new, close, rename, restart, read, send, key, wait."""

from __future__ import annotations

from typing import Any

from ...tabs import keyboard
from ...errors import BadArguments
from ..server import OpContext

ASK = 10.0
MAX_READ_LINES = 10_000


def register(host: Any) -> None:
    for name, handler in {
        "terminal.list": list_terminals,
        "terminal.new": new,
        "terminal.close": close,
        "terminal.rename": rename,
        "terminal.restart": restart,
        "terminal.read": read,
        "terminal.send": send,
        "terminal.key": key,
        "terminal.wait": wait,
    }.items():
        host.register_op(name, handler)


def _str(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value:
        raise BadArguments(f"'{key}' must be a non-empty string")
    return value


def _int(args: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadArguments(f"'{key}' must be an integer from {low} to {high}")
    return value


def _handle(ctx: OpContext, args: dict[str, Any]) -> Any:
    return ctx.host.workspace.get(_str(args, "name")).get(timeout=ASK)


def list_terminals(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    tabs = ctx.host.workspace.list_tabs().get(timeout=ASK)
    return {"terminals": [tab.to_json() for tab in tabs]}


def new(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    command = args.get("command")
    if command is not None and (
        not isinstance(command, list) or not command or not all(isinstance(p, str) for p in command)
    ):
        raise BadArguments("'command' must be a non-empty list of strings (argv)")
    cwd = args.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise BadArguments("'cwd' must be a string")
    role = args.get("role")
    tab = ctx.host.workspace.create_tab(_str(args, "name"), command, cwd, role).get(timeout=ASK)
    return tab.to_json()


def close(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    name = _handle(ctx, args).name
    ctx.host.workspace.close_tab(name).get(timeout=ASK)
    return {"closed": name}


def rename(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.host.workspace.rename_tab(_str(args, "name"), _str(args, "new_name")).get(timeout=ASK).to_json()


def restart(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.host.workspace.restart_tab(_str(args, "name")).get(timeout=ASK).to_json()


def read(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    lines = _int(args, "lines", 40, 1, MAX_READ_LINES)
    return _handle(ctx, args).terminal.read_text(lines).get(timeout=ASK)


def send(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    text = args.get("text", "")
    if not isinstance(text, str):
        raise BadArguments("'text' must be a string")
    enter = args.get("enter", True)
    if not isinstance(enter, bool):
        raise BadArguments("'enter' must be true or false")
    timeout_ms = _int(args, "timeout_ms", round(keyboard.SEND_TIMEOUT * 1000), 1, 600_000)
    handle = _handle(ctx, args)
    result = keyboard.send_text(handle.terminal, text, enter=enter, name=handle.name, timeout=timeout_ms / 1000)
    return {"name": handle.name, **result}


def key(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    keys = args.get("keys")
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise BadArguments("'keys' must be a non-empty list of key names")
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


def wait(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    idle_ms = _int(args, "idle_ms", 1500, 1, 3_600_000)
    timeout_ms = _int(args, "timeout_ms", 60_000, 1, 24 * 3_600_000)
    handle = _handle(ctx, args)
    waited = keyboard.wait_idle(handle.terminal, idle_ms, timeout_ms, gone=ctx.client_gone)
    return {"name": handle.name, "idle": True, "waited_ms": round(waited * 1000)}
