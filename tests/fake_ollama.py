"""A scripted fake Ollama server on 127.0.0.1, speaking the real NDJSON streaming protocol.

Tests queue one `Reply` per expected /api/chat call; each reply streams its chunks (with
optional delays), can stall, break the connection mid-stream, or answer with an HTTP error.
Every request body is recorded so tests can assert what the client sent. Its "tokenizer" is
3.2 characters per token: a prompt that would not fit the requested `num_ctx` with its
`num_predict` is recorded in `overflows` (real Ollama silently cuts such a prompt), and
refused with a 400 like a llama.cpp runner when `refuse_overflow` is set.

`FakeHandler` and `ScriptedServer`, what a fake server's handler and scripting need whatever
its wire, serve tests/fake_openai.py as well.
"""

from __future__ import annotations

import json
import math
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-request (the coordinator cancelled a run) is normal here, not
    worth a traceback in the test output; anything else is still printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


@dataclass
class Reply:
    chunks: list[str] = field(default_factory=list)
    status: int = 200
    error: str = "boom"
    delay: float = 0.0  # seconds before each chunk
    stall_after: int | None = None  # stop sending (keep the connection open) after N chunks
    stall_for: float = 30.0
    disconnect_after: int | None = None  # drop the connection after N chunks
    error_after: int | None = None  # after N chunks, an `{"error": ...}` line (as Ollama does)
    prompt_eval_count: int = 10
    thinking: list[str] = field(default_factory=list)  # `thinking` field chunks sent first
    tool_calls: list[dict[str, Any]] | None = None  # native tool calls, sent before `done`
    done_reason: str = "stop"  # "length": the reply hit num_predict (a cut-off)
    first_delay: float = 0.0  # seconds before anything is sent (loading, reading the prompt)

    @classmethod
    def action(cls, tool: str, split: int = 3, **args: Any) -> "Reply":
        """A reply whose content is one JSON action, streamed in `split` pieces."""
        text = json.dumps({"tool": tool, "args": args})
        step = max(1, len(text) // split)
        return cls(chunks=[text[i:i + step] for i in range(0, len(text), step)])


def prompt_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(math.ceil(len(m.get("content") or "") / 3.2) + 4 for m in messages)


class FakeHandler(BaseHTTPRequestHandler):
    """What both fakes' request handlers share: HTTP/1.1 and quiet, no Nagle, JSON answers,
    chunked streams, and acting out a `Reply`'s delays and faults (`play`). Each fake says how
    its wire writes thinking, content and an in-stream error, and how a torn chunk starts."""

    protocol_version = "HTTP/1.1"
    torn = b""  # what is sent of the chunk a `disconnect_after` reply breaks off in

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # as Go's net/http (and so Ollama) does: no Nagle, or small chunks wait 40 ms
        # for a delayed ACK
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _begin_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _raw(self, data: bytes) -> None:
        """One HTTP chunk."""
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def play(self, reply: Reply, model: Any) -> bool:
        """Send `reply`'s thinking and content chunks, with its delays: True when all went out,
        False when it broke off as scripted (torn and hung up, stalled, or an error line)."""
        if reply.first_delay:
            time.sleep(reply.first_delay)
        for thought in reply.thinking:
            self._thinking(model, thought)
        # index == len(chunks) is the point just before the final line(s)
        for index in range(len(reply.chunks) + 1):
            if reply.disconnect_after is not None and index >= reply.disconnect_after:
                self.wfile.write(self.torn)  # a torn chunk, then hang up
                self.wfile.flush()
                self.connection.shutdown(2)
                return False
            if reply.stall_after is not None and index >= reply.stall_after:
                time.sleep(reply.stall_for)
                return False
            if reply.error_after is not None and index >= reply.error_after:
                self._error_line(reply.error)
                self.wfile.write(b"0\r\n\r\n")
                return False
            if index == len(reply.chunks):
                break
            if reply.delay:
                time.sleep(reply.delay)
            self._content(model, reply.chunks[index])
        return True

    def _thinking(self, model: Any, text: str) -> None:
        raise NotImplementedError

    def _content(self, model: Any, text: str) -> None:
        raise NotImplementedError

    def _error_line(self, message: str) -> None:
        raise NotImplementedError


class ScriptedServer:
    """What both fakes share: the script of replies, the chat requests in order, and a server
    thread on a free port of 127.0.0.1 (`serve`, once the subclass has made its handler)."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []  # chat request bodies, in order
        self._lock = threading.Lock()

    def serve(self, handler: type[BaseHTTPRequestHandler], path: str = "") -> None:
        self.server = QuietServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        # A short poll: `close` (every test's teardown) waits up to one poll for the loop to see it.
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def next_reply(self) -> Reply:
        """The next scripted reply, or a plain `done` once the script has ended (hold the lock)."""
        return self.replies.pop(0) if self.replies else Reply.action("done", message="(script ended)")

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class FakeOllama(ScriptedServer):
    def __init__(self, models: tuple[str, ...] = ("gemma4:e4b",)) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []  # (method, path) of every request
        self.arrived: list[float] = []  # perf_counter() when each /api/chat request arrived
        self.finished: list[float] = []  # ... and when its reply was completely sent
        self.models = models
        self.capabilities = ["completion"]  # what /api/show lists
        self.overflows: list[int] = []  # prompt sizes that did not fit the window
        self.refuse_overflow = False
        fake = self

        class Handler(FakeHandler):
            torn = b"5\r\n{\"mo"

            def do_GET(self) -> None:
                with fake._lock:
                    fake.calls.append(("GET", self.path))
                if self.path == "/api/version":
                    self._json(200, {"version": "0.0.0-fake"})
                elif self.path == "/api/tags":
                    self._json(200, {"models": [{"model": m, "name": m} for m in fake.models]})
                else:
                    self._json(404, {"error": "not found"})

            def do_POST(self) -> None:
                arrived = time.perf_counter()  # before the fake's own reading and parsing
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with fake._lock:
                    fake.calls.append(("POST", self.path))
                if self.path == "/api/show":
                    if body.get("model") not in fake.models:
                        self._json(404, {"error": f"model '{body.get('model')}' not found"})
                    else:
                        self._json(200, {"capabilities": list(fake.capabilities), "model_info": {}, "details": {}})
                    return
                if self.path != "/api/chat":
                    self._json(404, {"error": "not found"})
                    return
                options = body.get("options") or {}
                size = prompt_tokens(body.get("messages", []))
                over = size + int(options.get("num_predict") or 0) > int(options.get("num_ctx") or 2048)
                with fake._lock:
                    fake.arrived.append(arrived)
                    fake.requests.append(body)
                    if over:
                        fake.overflows.append(size)
                    if over and fake.refuse_overflow:
                        reply = Reply(status=400, error=f"context window exceeded: the prompt has {size} tokens")
                    else:
                        reply = fake.next_reply()
                if reply.status != 200:
                    self._json(reply.status, {"error": reply.error})
                    return
                self._begin_stream("application/x-ndjson")
                model = body.get("model")
                try:
                    if not self.play(reply, model):
                        return
                    if reply.tool_calls:
                        self._chunk({"model": model, "done": False,
                                     "message": {"role": "assistant", "content": "", "tool_calls": reply.tool_calls}})
                    self._chunk({"model": model, "message": {"role": "assistant", "content": ""},
                                 "done": True, "done_reason": reply.done_reason, "prompt_eval_count": reply.prompt_eval_count,
                                 "eval_count": len(reply.chunks)})
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    fake.finished.append(time.perf_counter())
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _thinking(self, model: Any, text: str) -> None:
                self._chunk({"model": model, "done": False,
                             "message": {"role": "assistant", "content": "", "thinking": text}})

            def _content(self, model: Any, text: str) -> None:
                self._chunk({"model": model, "message": {"role": "assistant", "content": text}, "done": False})

            def _error_line(self, message: str) -> None:
                self._chunk({"error": message})

            def _chunk(self, obj: dict[str, Any]) -> None:
                self._raw(json.dumps(obj).encode() + b"\n")

        self.serve(Handler)
