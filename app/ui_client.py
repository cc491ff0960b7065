"""A UI's end of a session with the host (protocol/README.md): attach, then read frames and
events on a thread of its own and send messages up from any thread.

Used by the TUI (which turns every event into a Textual message) and by benchmarks and tests
that need to watch a tab the way a UI does. Imports nothing heavy.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ..actors.ipc import endpoint, endpoint_errors
from ..protocol import ipc, ops, paths, ui
from ..terminals.session import exists
from .client import HostError, NoHost
from .host_start import log_file

__all__ = ["UiClient", "HostError", "NoHost"]

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

# Seconds the host may take none of what a UI sends before the session counts as broken. Its
# session thread reads at once and never waits on a tab, so this is a stopped or hung host; a
# UI would otherwise hang with it (a big paste blocked the app for good, detach and all).
SEND_TIMEOUT = 10.0


class UiClient:
    """`on_event(event)` gets every event (a dict with `kind`) on the reader thread;
    `on_close(reason)` once, when the session ends (the host said why, or the line broke)."""

    def __init__(self, socket_path: Path | None = None, client: str = "tiki") -> None:
        self.socket_path = socket_path or paths.socket_path()
        self.client = client
        self.hello: dict[str, Any] = {}
        self._conn: socket.socket | None = None
        self._file: Any = None
        self._send_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self._refs = itertools.count(1)
        self.quiet_refs: set[int] = set()  # messages whose refusal the UI need not show (`colors`)
        self._replies: dict[int, Callable[[dict[str, Any]], None]] = {}
        self._reader: threading.Thread | None = None
        self._on_close: Callable[[str], None] | None = None
        self.closed: str | None = None

    # -- the session -------------------------------------------------------------------------

    def connect(self, cols: int | None = None, rows: int | None = None, fps: int = ui.DEFAULT_FPS,
                tab: int | None = None, timeout: float = 30.0, settings: str | None = None) -> dict[str, Any]:
        """Attach; returns the hello event. NoHost when no host answers, HostError when it
        refuses (a protocol version mismatch says so; so does a fault in `settings`, the text
        of this UI's config.toml, which the host checks: `hello["keys"]` are its [keys])."""
        try:
            conn = endpoint.connect(self.socket_path)
        except endpoint_errors.EndpointError as exc:
            raise NoHost(str(exc)) from None
        args = ops.UiAttach(version=ui.VERSION, client=self.client, fps=fps)
        if cols and rows:
            args["cols"], args["rows"] = cols, rows
        if tab is not None:
            args["tab"] = tab
        if settings is not None:
            args["settings"] = settings
        try:
            conn.settimeout(timeout)
            request = ipc.Request(ops.UI_ATTACH.name, dict(args), id="ui", token=os.environ.get("TIKI_TAB_TOKEN"))
            conn.sendall(request.to_frame())
            self._file = conn.makefile("rb")
            first = self._file.readline()
        except OSError as exc:
            conn.close()
            raise NoHost(f"the host at {self.socket_path} did not answer the attach ({exc})") from None
        reply = json.loads(first) if first.strip() else {}
        if "event" not in reply:
            conn.close()
            error = reply.get("error") or {}
            raise HostError(error.get("code", ipc.INTERNAL), error.get("message", "the host closed the session"))
        conn.settimeout(None)
        _send_timeout(conn, SEND_TIMEOUT)
        self._conn = conn
        self.hello = reply["event"]
        return self.hello

    def start(self, on_event: Callable[[dict[str, Any]], None], on_close: Callable[[str], None]) -> None:
        """Start reading (after `connect`)."""
        self._on_close = on_close
        self._reader = threading.Thread(target=self._read, args=(on_event,), name="tiki-ui-reader",
                                        daemon=True)
        self._reader.start()

    def _read(self, on_event: Callable[[dict[str, Any]], None]) -> None:
        reason = None  # the host says why in its final frame; without one, `_lost` finds out
        try:
            for line in self._file:
                reply = json.loads(line)
                event = reply.get("event")
                if event is None:  # the final frame: the host ended the session
                    result = reply.get("result") or {}
                    reason = result.get("detached") or (reply.get("error") or {}).get("message") or reason
                    break
                if event.get("kind") == "reply":
                    callback = self._replies.pop(event.get("ref"), None)
                    if callback is not None:
                        callback(event)
                        continue
                on_event(event)
        except (OSError, ValueError):
            pass
        self._end(reason or self._lost())

    def _lost(self) -> str:
        """Why the line broke with no word from the host: it died (SIGKILL, a crash), or not."""
        pid = self.hello.get("host_pid")
        if isinstance(pid, int) and _ended(pid):
            return (f"the host (pid {pid}) stopped without shutting down (killed or crashed); its tabs' programs "
                    f"got a hangup. `tiki` starts a new one with the same tabs; what the host logged: "
                    f"{log_file()}")
        return "the connection to the host was lost; `tiki` attaches again (`tiki status` says how the host is)"

    def _end(self, reason: str) -> None:
        """The session is over: `on_close(reason)`, once, whichever side found it first."""
        with self._close_lock:
            if self.closed is not None:
                return
            self.closed = reason
        if self._on_close is not None:
            self._on_close(reason)

    def close(self) -> None:
        """Detach: the host ends the session; the tabs run on."""
        with self._close_lock:
            if self.closed is None:
                self.closed = "detached"
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    # -- messages up (thread-safe) -----------------------------------------------------------

    def send(self, message: dict[str, Any]) -> bool:
        conn = self._conn
        if conn is None:
            return False
        data = _dumps(message).encode("utf-8") + b"\n"
        try:
            with self._send_lock:
                _send_all(conn, data)
        except OSError as exc:
            # Part of a message may be on the wire: the session cannot go on.
            if isinstance(exc, (BlockingIOError, TimeoutError)):
                reason = (f"the host took no input for {SEND_TIMEOUT:g} s (stopped or hung? `tiki status` says); "
                          "`tiki` attaches again")
            else:
                reason = f"the connection to the host was lost ({exc.strerror or exc})"
            self._end(reason)
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return False
        return True

    def input(self, tab: int, data: bytes) -> bool:
        try:
            return self.send({"t": "input", "tab": tab, "text": data.decode("utf-8")})
        except UnicodeDecodeError:
            return self.send({"t": "input", "tab": tab, "b64": base64.b64encode(data).decode("ascii")})

    def paste(self, tab: int, text: str) -> None:
        """In pieces that fit a message, each but the last marked `more`: the program gets one
        paste (one pair of bracketed-paste markers), however large."""
        limit = ui.MAX_MESSAGE // 8  # characters per message, well within the byte limit
        start = 0
        while text:
            end = min(len(text), start + limit)
            if end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
                end -= 1  # (a CRLF kept in one piece: it is one Enter, not two)
            message: dict[str, Any] = {"t": "paste", "tab": tab, "text": text[start:end]}
            if end < len(text):
                message["more"] = True
            self.send(message)
            if end >= len(text):
                return
            start = end

    def mouse(self, tab: int, action: str, x: int, y: int, button: int = 0, mods: tuple[str, ...] = ()) -> None:
        """A mouse event in the tab's cells (0-based); the host encodes it as the program asked."""
        message: dict[str, Any] = {"t": "mouse", "tab": tab, "action": action, "x": max(0, x), "y": max(0, y),
                                   "button": button}
        if mods:
            message["mods"] = list(mods)
        self.send(message)

    def resize(self, cols: int, rows: int) -> None:
        self.send({"t": "resize", "cols": max(2, cols), "rows": max(1, rows)})

    def watch(self, tab: int) -> None:
        self.send({"t": "watch", "tab": tab})

    def colors(self, fg: str | None, bg: str | None) -> int:
        """The default colours of this UI's terminal (as it answered OSC 10/11), for the tabs'
        programs that ask. Returns the message's ref: a host from before `colors` answers an
        `error` with it, which the UI does not show (that host cannot pass colours on)."""
        ref = self._ref()
        self.quiet_refs.add(ref)
        self.send({"t": "colors", "ref": ref, **({"fg": fg} if fg else {}), **({"bg": bg} if bg else {})})
        return ref

    def scrollback(self, tab: int, rows: int, *, offset: int | None = None, start: int | None = None,
                   screen: bool = False) -> int:
        """Ask for `rows` rows of history from `offset` rows above the live screen's top, or from
        row number `start` (protocol/README.md: history rows): one of the two. With the screen
        of the same moment when `screen`. Returns the ref its answer has."""
        if (offset is None) == (start is None):
            raise ValueError("scrollback: give an offset or a start row, one of the two")
        ref = self._ref()
        where: dict[str, Any] = {"offset": offset} if start is None else {"start": start}
        if screen:
            where["screen"] = True
        self.send({"t": "scrollback", "ref": ref, "tab": tab, "rows": rows, **where})
        return ref

    def consent(self, request_id: str, decision: str) -> None:
        self.send({"t": "consent", "request_id": request_id, "decision": decision})

    def ask(self, text: str) -> None:
        self.send({"t": "ask", "text": text})

    def call(self, op: ops.Op, args: dict[str, Any] | None = None,
             on_reply: Callable[[dict[str, Any]], None] | None = None) -> int:
        """Run a quick op through the session; `on_reply(reply)` gets its `reply` event."""
        ref = self._ref()
        if on_reply is not None:
            self._replies[ref] = on_reply
        self.send({"t": "call", "ref": ref, "op": op.name, "args": args or {}})
        return ref

    def _ref(self) -> int:
        return next(self._refs)


def _ended(pid: int, wait: float = 1.0) -> bool:
    """Whether process `pid` has ended (or does within `wait` s: a process's socket closes as
    it exits, a moment before it is gone). POSIX only; elsewhere, not known: False."""
    if os.name != "posix":
        return False
    deadline = time.monotonic() + wait
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:  # this UI started the host: its child, reaped here
                return True
        except ChildProcessError:
            pass  # not our child: it is reaped elsewhere
        if not exists(pid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def _send_all(conn: socket.socket, data: bytes) -> None:
    """`sendall`, in at most SEND_TIMEOUT s: each send waits at most that long for room
    (SO_SNDTIMEO), and a message the host takes a little at a time must be done by then too."""
    view = memoryview(data)
    deadline = time.monotonic() + SEND_TIMEOUT
    while view:
        view = view[conn.send(view):]
        if view and time.monotonic() > deadline:
            raise TimeoutError("the host takes too little input")


def _send_timeout(conn: socket.socket, seconds: float) -> None:
    """A timeout on sends only (SO_SNDTIMEO): reads stay blocking, a UI may be idle for days."""
    if os.name == "nt":
        value = struct.pack("I", int(seconds * 1000))
    else:
        value = struct.pack("ll", int(seconds), int(seconds % 1 * 1_000_000))
    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)
    except OSError:
        pass  # (a platform without it: sends block as before)
