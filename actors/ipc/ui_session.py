"""One attached UI: the `ui.attach` op, which holds its connection for as long as the UI runs.

After the attach request (checked version first: a UI that speaks another protocol version
is refused, saying which), the host sends `hello`, then screen frames and events through the
session's outbox (`ui_outbox`, its own sender thread); this thread reads the UI's messages
(`protocol.ui`: input, paste, mouse, resize, watch, scrollback, consent, call, ask) until the
UI hangs up. A UI that quits, loses its terminal or is killed only ends its session: the tabs
run on. Bad messages get an `error` event and the session goes on. See protocol/README.md.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import socket
import time
import traceback
from typing import Any

import pykka

from ...protocol import ipc, ops, ui
from ...protocol.config_file import SettingsError, parse_settings
from ...protocol.schema import SchemaError, check
from ..errors import BadArguments, TikiError
from .context import OpContext
from .identity import tty_name
from .ui_calls import run_call
from .ui_frames import event_body, frame_prefix, history_event
from .ui_outbox import SEND_TIMEOUT, Outbox

_ids = itertools.count(1)


def attach(ctx: OpContext, args: dict[str, Any]) -> dict[str, Any]:
    version = args["version"]
    if version != ui.VERSION:
        raise TikiError(f"this host speaks UI protocol {ui.VERSION} and the UI speaks {version}: attach with the "
                        "tiki that started this host, or stop it (`tiki shutdown`, its tabs end) and run `tiki` "
                        "again")
    hub = ctx.host.service("ui")
    if hub is None or ctx.conn is None:
        raise TikiError("this host takes no UIs")
    inside = ctx.caller_tab
    if inside is not None:  # it would show its own tab: itself inside itself, redrawn for ever
        raise TikiError(f"this is tab '{inside}' of the host it would attach to: a UI here would show itself "
                        "inside itself. Switch tabs in the UI this tab is shown in (the prefix, then the tab's "
                        "number), or run `tiki` in a terminal outside the host's tabs")
    return UiSession(ctx, hub, args, _config(ctx, args.get("settings"))).serve()


def _config(ctx: OpContext, text: str | None) -> dict[str, Any]:
    """What a UI's `hello` says of its config.toml: the [keys] to use, and notices about old
    spellings for its panel. The text it sent is checked here as the host checked its own (a
    fault refuses the attach, named); without one, the host's own settings answer."""
    notes: list[str] = []
    if text is None:
        settings = ctx.host.settings
    else:
        try:
            settings = parse_settings(text, env={}, notes=notes)  # (the environment overrides nothing in [keys])
        except SettingsError as exc:
            raise BadArguments(str(exc)) from None
    return {"keys": settings.keys.model_dump(), "notes": notes}


HANDLERS = {ops.UI_ATTACH: attach}


class UiSession:
    def __init__(self, ctx: OpContext, hub: Any, args: dict[str, Any], config: dict[str, Any]) -> None:
        self.id = next(_ids)
        self.config = config  # for its hello: keys, notes
        self._pasting: set[int] = set()  # tabs whose paste came in pieces and has more to come
        self._ctx, self._hub, self._host = ctx, hub, ctx.host
        self._conn: socket.socket = ctx.conn  # type: ignore[assignment]
        self._client = args.get("client", "a UI")
        self._first_tab = args.get("tab")
        self.tab: int | None = None  # the tab this UI shows
        self.active_at = 0  # when it was last used, in the hub's order (its sizes follow the latest)
        self.attached_at = self.used_at = time.monotonic()  # (used: typed, clicked, resized, switched tabs)
        cols, rows = args.get("cols"), args.get("rows")
        self.size: tuple[int, int] | None = (cols, rows) if cols and rows else None
        self.colors: tuple[str | None, str | None] = (None, None)  # its terminal's default fg, bg
        self._ended: str | None = None
        self.outbox = Outbox(self._conn, frame_prefix(ctx.request_id), args.get("fps", ui.DEFAULT_FPS), self.end)

    def end(self, reason: str) -> None:
        """End the session from any thread (the host stops, the UI fell behind)."""
        if self._ended is None:
            self._ended = reason
        self.outbox.close()
        try:
            self._conn.shutdown(socket.SHUT_RD)  # wakes the reading thread
        except OSError:
            pass

    def send(self, event: dict[str, Any]) -> None:
        self.outbox.event(event_body(event))

    def info(self, tab: str | None, latest: bool) -> ui.UiInfo:
        """This UI as `tiki status` lists it (`tab`: the name of the tab it shows)."""
        peer, now = self._ctx.peer, time.monotonic()
        # (The kernel's word for its terminal, not the UI's: a UI from before could not say, and
        # a host from before would refuse an attach that did.)
        tty = tty_name(peer.ttys[0]) if peer is not None and peer.ttys else None
        return {"session": self.id, "client": self._client, "pid": peer.pid if peer is not None else None,
                "tty": tty, "size": list(self.size) if self.size else None, "tab": tab, "latest": latest,
                "attached_s": round(now - self.attached_at, 1), "idle_s": round(now - self.used_at, 1)}

    # -- the session's life ------------------------------------------------------------------

    def serve(self) -> dict[str, Any]:
        self._conn.settimeout(SEND_TIMEOUT)
        sender = None
        try:
            self._hub.attach(self)  # queues the hello
            sender = self._host.supervisor.task("ui.sender", self.outbox.run)
            self._host.event_log.append("ui_attached", detail=f"session {self.id}: {self._client}")
            self._host.supervisor.task("ui.call", self._backend_check)
            if self._first_tab is not None:
                self._line(b'{"t": "watch", "tab": %d}' % self._first_tab)
            self._read()
        finally:
            self._hub.detach(self)
            self.outbox.close()
            if sender is not None:
                sender.join(timeout=5)  # the final reply must not interleave with a frame
        reason = self._ended or "the UI left"
        self._host.event_log.append("ui_detached", detail=f"session {self.id}: {reason}")
        return {"detached": reason}

    def _read(self) -> None:
        buffer = bytearray()
        while self._ended is None:
            try:
                chunk = self._conn.recv(65536)
            except socket.timeout:
                continue  # an idle UI: nothing to say is fine
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while (newline := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[:newline])
                del buffer[:newline + 1]
                if line.strip():
                    self._line(line)
            if len(buffer) > ui.MAX_MESSAGE:
                self.send({"kind": "error", "message": f"a message exceeds {ui.MAX_MESSAGE} bytes; "
                                                       "send large pastes in pieces"})
                self.end("the UI sent an oversized message")
                return

    def _line(self, line: bytes) -> None:
        message: dict[str, Any] = {}
        try:
            message = ipc.decode_object(line, ui.MAX_MESSAGE)
            self._handle(message)
        except (ipc.FrameError, SchemaError) as exc:
            self._error(message, str(exc))
        except TikiError as exc:
            self._error(message, exc.message)
        except (pykka.ActorDeadError, pykka.Timeout) as exc:
            self._error(message, f"a part of the host did not answer ({type(exc).__name__}); see `tiki status`")
        except Exception as exc:  # noqa: BLE001 - a message the host failed on must not end the UI's session
            kind = ipc.clip(str(message.get("t", "message")), 40)
            self._host.event_log.append("internal_error", detail=f"{kind} (UI): {exc!r}",
                                        trace=traceback.format_exc(limit=8))
            self._error(message, f"{kind} failed: {exc!r}")

    def _error(self, message: dict[str, Any], text: str) -> None:
        self.send({"kind": "error", "ref": message.get("ref"), "message": text})

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        shape = ui.UP.get(kind) if isinstance(kind, str) else None
        if shape is None:
            raise BadArguments(f"unknown message type {kind!r}; types: {', '.join(ui.UP)}")
        check(shape, message, where=str(kind))
        getattr(self, f"_on_{kind}")(message)

    # -- messages ----------------------------------------------------------------------------

    def _on_input(self, message: dict[str, Any]) -> None:
        if "b64" in message:
            try:
                data = base64.b64decode(message["b64"], validate=True)
            except (binascii.Error, ValueError):
                raise BadArguments("'b64' is not base64") from None
        else:
            data = message.get("text", "").encode("utf-8")
        terminal = self._hub.terminal(message["tab"])
        self._hub.touch(self)
        if data:
            terminal.typed(data)  # not awaited: typing never waits for the tab's mailbox

    def _on_paste(self, message: dict[str, Any]) -> None:
        terminal = self._hub.terminal(message["tab"])
        self._hub.touch(self)
        tab, more = message["tab"], bool(message.get("more"))
        opening = tab not in self._pasting  # (a paste in pieces: one pair of markers for all)
        (self._pasting.add if more else self._pasting.discard)(tab)
        terminal.paste(message["text"], opening, not more)

    def _on_mouse(self, message: dict[str, Any]) -> None:
        terminal = self._hub.terminal(message["tab"])
        self._hub.touch(self)
        # Encoded by the tab for the modes its program set (or arrow keys for the wheel on the
        # alternate screen); not awaited, as typing is not.
        terminal.mouse(message["action"], message["x"], message["y"], message.get("button", 0),
                       tuple(message.get("mods", ())))

    def _on_resize(self, message: dict[str, Any]) -> None:
        self.size = (message["cols"], message["rows"])
        self._hub.touch(self)

    def _on_colors(self, message: dict[str, Any]) -> None:
        for key in ("fg", "bg"):
            if key in message and not ui.COLOR.fullmatch(message[key]):
                raise BadArguments(f"'{key}' is not a colour as a terminal answers OSC 10/11 (rgb:RRRR/GGGG/BBBB)")
        self.colors = (message.get("fg"), message.get("bg"))
        if self._hub.latest is self or self._hub.colors.colors == (None, None):
            self._hub.colors.follow(self)

    def _on_watch(self, message: dict[str, Any]) -> None:
        self._hub.watch(self, message["tab"])

    def _on_consent(self, message: dict[str, Any]) -> None:
        self._hub.consents.answer(message["request_id"], message["decision"])

    def _on_ask(self, message: dict[str, Any]) -> None:
        coordinator = self._host.service("coordinator")
        if coordinator is None:
            raise TikiError("this host has no coordinator")
        # Progress arrives as `run` events, which every UI sees: the source names this session,
        # so its panel knows its own runs from the others'.
        coordinator.submit(message["text"], source=f"ui:{self.id}")

    def _backend_check(self) -> None:
        """Why AI mode cannot work on this host (None: a backend may answer), as a `backend`
        event: the coordinator's own check, so the UI and `tiki ask` never disagree."""
        if self._host.service("coordinator") is None:
            problem: str | None = "this host has no coordinator"
        else:
            backend = self._host.service("backend")
            try:
                problem = backend.problem() if hasattr(backend, "problem") else None
            except Exception as exc:  # noqa: BLE001 - a probe that breaks means "not available"
                problem = f"cannot check the backend: {exc}"
        self.send({"kind": "backend", "problem": problem})

    def _on_scrollback(self, message: dict[str, Any]) -> None:
        terminal = self._hub.terminal(message["tab"])
        self._host.supervisor.task("ui.call", self._scrollback, terminal, message)

    def _scrollback(self, terminal: Any, message: dict[str, Any]) -> None:
        try:
            page = terminal.history_page(message.get("offset", 0), message["rows"], message.get("start"),
                                         message.get("screen", False)).get(timeout=10)
        except (pykka.ActorDeadError, pykka.Timeout):
            self._error(message, "the tab closed, or did not answer in time")
            return
        except Exception as exc:  # noqa: BLE001 - else the UI waits for ever for a page that will not come
            self._host.event_log.append("internal_error", detail=f"scrollback (UI): {exc!r}",
                                        trace=traceback.format_exc(limit=8))
            self._error(message, f"the tab's history could not be read: {exc}")
            return
        self.outbox.event(history_event(message["ref"], message["tab"], page))

    def _on_call(self, message: dict[str, Any]) -> None:
        self._host.supervisor.task("ui.call", self._call, message)

    def _call(self, message: dict[str, Any]) -> None:
        after: list[Any] = []
        self.send(run_call(self._host, message, f"ui{self.id}.{message['ref']}", self._ctx.peer, after))
        for callback in after:
            callback()
