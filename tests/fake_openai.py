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
from typing import Any

from fake_ollama import FakeHandler, Reply, ScriptedServer

__all__ = ["FakeOpenAI", "Reply", "prompt_tokens"]


def prompt_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(math.ceil(len(m.get("content") or "") / 4) + 4 for m in messages)


class FakeOpenAI(ScriptedServer):
    def __init__(self, models: tuple[str, ...] = ("gemma4:e4b",), window: int | None = None) -> None:
        super().__init__()
        self.headers: list[dict[str, str]] = []
        self.overflows: list[int] = []  # prompt sizes refused for the window
        self.models, self.window = models, window
        fake = self

        class Handler(FakeHandler):
            torn = b"9\r\ndata: {\"i"

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
                        reply = fake.next_reply()
                if reply is None:
                    self._json(400, {"error": {"message": f"This model's maximum context length is {fake.window} "
                                                          f"tokens; the request has {size}", "code": "context_length_exceeded"}})
                    return
                if reply.status != 200:
                    self._json(reply.status, {"error": {"message": reply.error, "type": "error", "code": reply.status}})
                    return
                self._begin_stream("text/event-stream")
                try:
                    self._stream(reply, body, size)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _stream(self, reply: Reply, body: dict[str, Any], size: int) -> None:
                model = body.get("model")
                if not self.play(reply, model):
                    return
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

            def _thinking(self, model: Any, text: str) -> None:
                self._event(model, {"reasoning_content": text})

            def _content(self, model: Any, text: str) -> None:
                self._event(model, {"content": text})

            def _error_line(self, message: str) -> None:
                self._send({"error": {"message": message, "type": "server_error"}})

            def _event(self, model: Any, delta: dict[str, Any], reason: str | None = None) -> None:
                self._send({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model,
                            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]})

            def _send(self, obj: dict[str, Any]) -> None:
                self._raw(b"data: " + json.dumps(obj).encode() + b"\n\n")

        self.serve(Handler, "/v1")
