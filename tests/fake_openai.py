"""A scripted fake OpenAI-compatible server on 127.0.0.1: `/v1/chat/completions` streaming
server-sent events as llama.cpp's server, vLLM and OpenAI do, and `/v1/models`.

It takes the same `Reply` scripts as `fake_ollama` (chunks, delays, stalls, torn connections,
HTTP errors, an error inside the stream, thinking, native tool calls, `finish_reason:
"length"`), so one scenario can run against both backends. Its "tokenizer" is 4 characters
per token: usage reports that for the prompt, and with `window` set a longer prompt is
refused with 400 `context_length_exceeded` (and recorded in `overflows`), as servers do.
"""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from fake_ollama import QuietServer, Reply

__all__ = ["FakeOpenAI", "Reply", "prompt_tokens"]


def prompt_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(math.ceil(len(m.get("content") or "") / 4) + 4 for m in messages)


class FakeOpenAI:
    def __init__(self, models: tuple[str, ...] = ("gemma4:e4b",), window: int | None = None) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.overflows: list[int] = []  # prompt sizes refused for the window
        self.models, self.window = models, window
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if self.path != "/v1/chat/completions":
                    self._json(404, {"error": {"message": "not found"}})
                    return
                size = prompt_tokens(body.get("messages", []))
                with fake._lock:
                    fake.requests.append(body)
                    fake.headers.append(dict(self.headers))
                    if fake.window is not None and size + int(body.get("max_tokens") or 0) > fake.window:
                        fake.overflows.append(size)
                        reply = None
                    else:
                        reply = fake.replies.pop(0) if fake.replies else Reply.action("done", message="(script ended)")
                if reply is None:
                    self._json(400, {"error": {"message": f"This model's maximum context length is {fake.window} "
                                                          f"tokens; the request has {size}", "code": "context_length_exceeded"}})
                    return
                if reply.status != 200:
                    self._json(reply.status, {"error": {"message": reply.error, "type": "error", "code": reply.status}})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    self._stream(reply, body, size)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _stream(self, reply: Reply, body: dict[str, Any], size: int) -> None:
                model = body.get("model")
                if reply.first_delay:
                    time.sleep(reply.first_delay)
                for thought in reply.thinking:
                    self._event(model, {"reasoning_content": thought})
                for index in range(len(reply.chunks) + 1):
                    if reply.disconnect_after is not None and index >= reply.disconnect_after:
                        self.wfile.write(b"9\r\ndata: {\"i")  # a torn chunk, then hang up
                        self.wfile.flush()
                        self.connection.shutdown(2)
                        return
                    if reply.stall_after is not None and index >= reply.stall_after:
                        time.sleep(reply.stall_for)
                        return
                    if reply.error_after is not None and index >= reply.error_after:
                        self._send({"error": {"message": reply.error, "type": "server_error"}})
                        self.wfile.write(b"0\r\n\r\n")
                        return
                    if index == len(reply.chunks):
                        break
                    if reply.delay:
                        time.sleep(reply.delay)
                    self._event(model, {"content": reply.chunks[index]})
                for n, call in enumerate(reply.tool_calls or ()):
                    function = call["function"]
                    self._event(model, {"tool_calls": [{"index": n, "id": f"call_{n}", "type": "function",
                                                        "function": {"name": function["name"],
                                                                     "arguments": json.dumps(function["arguments"])}}]})
                reason = {"stop": "tool_calls" if reply.tool_calls else "stop"}.get(reply.done_reason, reply.done_reason)
                self._event(model, {}, reason)
                self._send({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
                            "usage": {"prompt_tokens": size, "completion_tokens": len(reply.chunks),
                                      "total_tokens": size + len(reply.chunks)}})
                self._raw(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _event(self, model: Any, delta: dict[str, Any], reason: str | None = None) -> None:
                self._send({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model,
                            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]})

            def _send(self, obj: dict[str, Any]) -> None:
                self._raw(b"data: " + json.dumps(obj).encode() + b"\n\n")

            def _raw(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
