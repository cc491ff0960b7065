"""One model turn over the official `ollama` client: streaming, timers, retries, cancel.

The HTTP stream is read on a helper thread that hands chunks over through a queue, so the
turn's own thread can enforce an idle timeout (no chunk for N s) and a whole-turn deadline
exactly, and a cancel returns at once even while the server is silent. A turn that already
produced output is never retried (it was shown); before that, 5xx, 429, refused/reset
connections and timeouts are retried with backoff 2, 4, 8, ... s (capped at 30, 5 attempts).

The embedded backend plugs in underneath as an httpx transport (`backends.embedded`), so this
one code path serves both.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable

from ....protocol.llm_errors import MAX_ATTEMPTS, backoff, classify
from ....protocol.settings import CoordinatorSettings
from ....protocol.think import ThinkStripper

DEFAULT_HOST = "http://127.0.0.1:11434"


def normalize_host(value: str | None) -> str:
    """`OLLAMA_HOST` as users write it (`host`, `host:port`, `:port`, a URL) -> a base URL,
    the way Ollama itself reads it, so messages and probes name the real address."""
    value = (value or "").strip().rstrip("/")
    if not value:
        return DEFAULT_HOST
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest = "http", value
    split = urllib.parse.urlsplit(f"{scheme}://{rest}")
    host = split.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    port = split.port or (11434 if not sep else {"http": 80, "https": 443}.get(scheme, 11434))
    path = split.path.strip("/")
    return f"{scheme}://{host}:{port}" + (f"/{path}" if path else "")


class LlmError(Exception):
    """The turn failed for good; the message is for the user."""


class Cancelled(Exception):
    pass


@dataclass
class TurnOutput:
    text: str  # the visible output, think tags removed
    tokens: int
    prompt_tokens: int | None  # prompt_eval_count: tokens the backend had to evaluate
    eval_tokens: int | None


_END = object()


class OllamaBackend:
    name = "ollama"

    def __init__(
        self,
        settings: CoordinatorSettings,
        *,
        transport: Any = None,
        sleep: Callable[[float, threading.Event], None] | None = None,
    ) -> None:
        import httpx
        import ollama

        self.settings = settings
        self.model = settings.model
        self.host = normalize_host(settings.ollama_host)
        self._sleep = sleep or (lambda seconds, cancel: cancel.wait(seconds))
        # The idle timeout is enforced exactly by the turn's thread; the read timeout only
        # makes sure an abandoned stream's reader thread ends too.
        timeout = httpx.Timeout(settings.request_timeout, read=settings.idle_timeout + 5)
        extra = {"transport": transport} if transport is not None else {}
        self._client = ollama.Client(host=self.host, timeout=timeout, **extra)
        self.extra_options: dict[str, Any] = {}
        self._native: bool | None = None  # decided once from /api/show when asked for

    # -- a turn ----------------------------------------------------------------------------

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any] | None,
        cancel: threading.Event,
        on_progress: Callable[[int], None],
        options: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> TurnOutput:
        """One turn. `tools` (native tool definitions) replace `schema` only when the user
        asked for native tools and the model lists the capability: never both."""
        if tools is not None and self.uses_native_tools():
            schema = None
        else:
            tools = None
        last_error = ""
        for attempt in range(MAX_ATTEMPTS):
            shown = [False]
            try:
                return self._stream(messages, schema, tools, cancel, on_progress, shown, options or {})
            except Cancelled:
                raise
            except LlmError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below, never a traceback
                failure = classify(exc, model=self.model, host=self.host)
                if shown[0]:
                    raise LlmError(f"the model's reply broke off after it had started "
                                   f"({failure.message}); not retried") from None
                if failure.final:
                    raise LlmError(failure.message) from None
                last_error = failure.message
            if attempt + 1 < MAX_ATTEMPTS:
                self._sleep(backoff(attempt), cancel)
                if cancel.is_set():
                    raise Cancelled()
        raise LlmError(f"gave up after {MAX_ATTEMPTS} attempts on {self.host}: {last_error}")

    def uses_native_tools(self) -> bool:
        if not self.settings.native_tools:
            return False
        if self._native is None:
            self._native = "tools" in self.capabilities()
        return self._native

    def _stream(self, messages, schema, tools, cancel, on_progress, shown, options) -> TurnOutput:
        settings = self.settings
        request = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "think": settings.think,
            "options": {"num_ctx": settings.num_ctx, "temperature": settings.temperature,
                        **self.extra_options, **options},
        }
        if schema is not None:
            request["format"] = schema
        if tools is not None:
            request["tools"] = tools
        chunks: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def pump() -> None:
            try:
                for part in self._client.chat(**request):
                    if stop.is_set():
                        return
                    chunks.put(part)
                chunks.put(_END)
            except BaseException as exc:  # handed to the turn's thread, which classifies it
                chunks.put(exc)

        threading.Thread(target=pump, name="tiki-llm-stream", daemon=True).start()
        stripper = ThinkStripper()
        text: list[str] = []
        tokens = 0
        final = None
        deadline = time.monotonic() + settings.turn_deadline
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise LlmError(f"the model's turn took longer than {settings.turn_deadline:g} s (deadline)")
                item = self._next(chunks, min(settings.idle_timeout, remaining), cancel)
                if item is None:
                    if deadline - time.monotonic() <= 0:
                        continue  # reported as the deadline on the next pass
                    raise LlmError(f"the model sent nothing for {settings.idle_timeout:g} s (idle timeout)")
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                message = item.message
                piece = message.content or ""  # `thinking` is never part of the answer
                for call in message.tool_calls or ():
                    # a native tool call becomes the same one-action JSON as `format` output
                    piece += json.dumps({"tool": call.function.name, "args": dict(call.function.arguments or {})})
                if piece:
                    shown[0] = True
                    tokens += 1
                    text.append(stripper.feed(piece))
                    on_progress(tokens)
                if item.done:
                    final = item
                    break
        finally:
            stop.set()
        text.append(stripper.flush())
        return TurnOutput(
            "".join(text).strip(),
            tokens,
            getattr(final, "prompt_eval_count", None),
            getattr(final, "eval_count", None),
        )

    @staticmethod
    def _next(chunks: queue.Queue, timeout: float, cancel: threading.Event) -> Any:
        """The next chunk, None on timeout; Cancelled as soon as `cancel` is set."""
        end = time.monotonic() + timeout
        while True:
            if cancel.is_set():
                raise Cancelled()
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                return chunks.get(timeout=min(left, 0.05))
            except queue.Empty:
                continue

    # -- facts for status and doctor --------------------------------------------------------

    def capabilities(self) -> list[str]:
        try:
            return list(getattr(self._client.show(self.model), "capabilities", None) or [])
        except Exception:  # noqa: BLE001
            return []

    def check(self) -> tuple[bool, str]:
        """(model present, detail) — for `tiki doctor`."""
        reachable, models, detail = self.probe()
        if not reachable:
            return False, detail
        return self.model_check(models)

    def probe(self) -> tuple[bool, list[str], str]:
        """(server answers, its model names, detail)."""
        try:
            models = [m.model for m in self._client.list().models]
        except Exception as exc:  # noqa: BLE001
            return False, [], classify(exc, model=self.model, host=self.host).message
        return True, models, f"{self.host} answers ({len(models)} models)"

    def model_check(self, models: list[str]) -> tuple[bool, str]:
        wanted = self.model if ":" in self.model else f"{self.model}:latest"
        if any(name in (self.model, wanted) for name in models):
            return True, f"{self.host} has {self.model}"
        return False, f"{self.host} answers but has no {self.model}: run `ollama pull {self.model}`"
