"""IPC ops about the host itself and the bot-chat wire's receiving half.

`bot.chat` verifies the caller (see ipc_context): a request from inside a tab speaks as that
tab and nothing else (claiming another tab's name is refused). On Linux the kernel says which
tab a caller is in (its terminal is the tab's PTY) and a copied token proves nothing; where it
cannot say, the tab's TIKI_TAB_TOKEN is the check. A request from outside every tab is marked
unverified. The event log records which check verified each message (`verified_by`).
"""

from __future__ import annotations

import os
from typing import Any

from ....protocol import ops
from ....protocol.done import unwrap_done
from ...errors import BadArguments, TikiError
from ...events import BotChat
from ..context import OpContext


def ping(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"pong": True, "pid": os.getpid()}


def info(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    host = ctx.host
    ipc_server = host.service("ipc.connections")
    return {
        "pid": os.getpid(),
        "socket": str(host.socket_path),
        "workspace": str(host.workspace_path) if host.workspace_path else None,
        "workspace_note": host.start_note,  # how it was chosen, when worth saying (a restore)
        "tabs": len(host.workspace.names().get(timeout=5)),
        "connections": ipc_server.stats() if ipc_server is not None else None,
        "uis": hub.describe() if (hub := host.service("ui")) is not None else [],
        "health": host.supervisor.health(),
    }


def shutdown(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    ctx.after_reply.append(ctx.host.request_stop)  # answer first, then stop
    return {"stopping": True}


def log_tail(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"events": ctx.host.event_log.tail(args.get("last"))}


def bot_chat(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    message, claimed = args["message"], args.get("from")
    if claimed is not None and not claimed.strip():
        raise BadArguments("'from' must not be blank")
    caller = ctx.caller
    note = None
    if caller is not None:
        known = [caller["name"], *caller["former_names"]]
        if claimed is not None and claimed.casefold() not in {n.casefold() for n in known}:
            raise TikiError(
                f"refused: this request comes from tab '{caller['name']}' but claims to be "
                f"'{claimed}'; a tab can only speak as itself (drop --from, or use --from {caller['name']})"
            )
        sender, verified = caller["name"], True
    else:
        if claimed is None:
            raise BadArguments("--from NAME is required outside a tikitaka tab")
        sender, verified = claimed.strip(), False
        notes = []
        if ctx.token_ignored:
            notes.append("the tab token was ignored: this process does not run inside that tab's terminal")
        names = ctx.host.workspace.names().get(timeout=5)
        if sender.casefold() not in {name.casefold() for name in names}:
            # (delivered all the same -- a script may speak for itself -- but a misspelt tab is named)
            notes.append(f"no tab is named '{sender}' (tabs: {', '.join(names) or 'none'})")
        note = "; ".join(notes) or None
    text = unwrap_done(message)
    entry = ctx.host.event_log.append("bot_chat", sender=sender, text=text, verified=verified,
                                      verified_by=ctx.verified_by)
    ctx.host.bus.publish(BotChat(sender, text, verified, entry["time"]))
    return {"accepted": True, "from": sender, "verified": verified, "verified_by": ctx.verified_by,
            "text": text, "note": note}


HANDLERS = {
    ops.HOST_PING: ping, ops.HOST_INFO: info, ops.HOST_SHUTDOWN: shutdown, ops.LOG_TAIL: log_tail,
    ops.BOT_CHAT: bot_chat,
}
