"""The Ollama backend: one streamed model turn over the official `ollama` client.

The timers, retries and cancellation are `stream.StreamingBackend`'s; this module builds
Ollama's request (the JSON schema as `format=`, or native `tools=`, never both; the context
window, the reply budget and `think` always sent) and reads its chunks: `thinking` is
progress, a `done_reason` of "length" is a cut-off, `prompt_eval_count` the prompt tokens it
evaluated. The embedded backend plugs in underneath as an httpx transport
(`backends.embedded`), so this one code path serves both.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from typing import Any, Callable, Iterator

from ....protocol.llm_errors import Failure, classify
from ....protocol.settings import CoordinatorSettings
from .stream import Cancelled, ContextOverflow, LlmError, Piece, StreamingBackend, TurnOutput, TurnRequest

__all__ = ["OllamaBackend", "normalize_host", "Cancelled", "ContextOverflow", "LlmError", "TurnOutput"]

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


class OllamaBackend(StreamingBackend):
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

        super().__init__(settings, sleep)
        self.model = settings.model
        self.host = normalize_host(settings.ollama_host)
        # The timers are enforced exactly by the turn's thread; the read timeout only makes
        # sure an abandoned stream's reader thread ends too.
        slowest = max(settings.first_token_timeout, settings.idle_timeout) + 5
        timeout = httpx.Timeout(settings.request_timeout, read=slowest)
        extra = {"transport": transport} if transport is not None else {}
        self._client = ollama.Client(host=self.host, timeout=timeout, **extra)
        self.extra_options: dict[str, Any] = {}
        self._capabilities: list[str] | None = None  # from /api/show, asked once when needed

    def _classify(self, exc: BaseException) -> Failure:
        return classify(exc, model=self.model, host=self.host)

    def _think(self) -> bool | None:
        """Ollama's `think`: sent only when it means something to this model (a model
        without the capability answers 400 to `think: true`)."""
        if self.settings.reasoning == "auto":
            return None
        thinking = "thinking" in self.capabilities()
        if self.settings.reasoning == "on":
            return True if thinking else None
        return False if thinking else None

    def _pieces(self, request: TurnRequest) -> Iterator[Piece]:
        settings = self.settings
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "stream": True,
            "options": {"num_ctx": settings.num_ctx, "temperature": settings.temperature,
                        "num_predict": settings.reply_tokens, **self.extra_options, **request.options},
        }
        think = self._think()
        if think is not None:
            body["think"] = think
        if request.schema is not None:
            body["format"] = request.schema
        if request.tools is not None:
            body["tools"] = request.tools
        for part in self._client.chat(**body):
            message = part.message
            content = message.content or ""
            for call in message.tool_calls or ():
                # a native tool call becomes the same one-action JSON as `format` output
                content += json.dumps({"tool": call.function.name, "args": dict(call.function.arguments or {})})
            yield Piece(content=content, thinking=getattr(message, "thinking", None) or "", done=bool(part.done),
                        done_reason=getattr(part, "done_reason", None), prompt_tokens=part.prompt_eval_count,
                        prompt_total=(part.model_extra or {}).get("prompt_tokens_total"),
                        eval_tokens=part.eval_count)

    def reasons(self) -> bool:
        if self.settings.reasoning == "auto":
            return "thinking" in self.capabilities()
        return self.settings.reasoning == "on"

    def uses_native_tools(self) -> bool:
        return self.settings.native_tools and "tools" in self.capabilities()

    def load_info(self) -> tuple[str, int] | None:
        """(model, bytes) when Ollama has the model on disk but not in memory: the first turn
        loads it, which we say rather than look stuck."""
        try:
            running = {m.model for m in self._client.ps().models}
            if self.model in running or f"{self.model}:latest" in running:
                return None
            sizes = {m.model: m.size for m in self._client.list().models}
            size = sizes.get(self.model) or sizes.get(f"{self.model}:latest")
        except Exception:  # noqa: BLE001 - a progress nicety; the turn reports real errors
            return None
        return (self.model, int(size)) if size else None

    # -- facts for status and doctor ------------------------------------------------------------

    def capabilities(self) -> list[str]:
        if self._capabilities is None:
            try:
                self._capabilities = list(getattr(self._client.show(self.model), "capabilities", None) or [])
            except Exception:  # noqa: BLE001
                return []
        return self._capabilities

    def check(self) -> tuple[bool, str]:
        """(model present, detail) — for `tiki doctor`."""
        reachable, models, detail = self.probe()
        if not reachable:
            return False, detail
        return self.model_check(models)

    def probe(self) -> tuple[bool, list[str], str]:
        """(server answers, its model names, detail)."""
        try:
            models = [m.model for m in self._client.list().models if m.model]
        except Exception as exc:  # noqa: BLE001
            return False, [], classify(exc, model=self.model, host=self.host).message
        return True, models, f"{self.host} answers ({len(models)} models)"

    def model_check(self, models: list[str]) -> tuple[bool, str]:
        wanted = self.model if ":" in self.model else f"{self.model}:latest"
        if any(name in (self.model, wanted) for name in models):
            return True, f"{self.host} has {self.model}"
        return False, f"{self.host} answers but has no {self.model}: run `ollama pull {self.model}`"
