"""The OpenAI-compatible backend: llama.cpp's server, LM Studio, vLLM, Ollama's /v1, a cloud.

Through the official `openai` client (the optional extra `tikitaka[openai]`), with its own
retries off: the timers, retries and cancellation are `stream.StreamingBackend`'s, the same
as Ollama's. Output is constrained with the provider's JSON-schema response format, or with
native tool calls when `native_tools` is on; the reply streams, `finish_reason: "length"` is
a cut-off, `reasoning_content` (or `reasoning`) is progress, and the final usage chunk gives
the prompt's size. The API key comes from the environment variable named by `api_key_env`.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Callable, Iterator

from ....protocol.llm_errors import Failure, classify
from ....protocol.settings import CoordinatorSettings
from ..limits import PROBE_TIMEOUT
from .stream import Piece, StreamingBackend, TurnRequest

LOCAL_KEY = "not-needed"  # local servers ignore the key, but the client insists on one


class OpenAIUnavailable(RuntimeError):
    pass


class OpenAIBackend(StreamingBackend):
    name = "openai"

    def __init__(self, settings: CoordinatorSettings, *,
                 sleep: Callable[[float, threading.Event], None] | None = None) -> None:
        try:
            import openai
        except ImportError:
            raise OpenAIUnavailable("the OpenAI-compatible backend needs its client: pip install 'tikitaka[openai]'") from None
        if not settings.base_url:
            raise OpenAIUnavailable('backend = "openai" needs base_url in [coordinator] (or TIKI_BASE_URL)')
        super().__init__(settings, sleep)
        self.model = settings.model
        self.host = settings.base_url.rstrip("/")
        slowest = max(settings.first_token_timeout, settings.idle_timeout) + 5
        self._client = openai.OpenAI(
            base_url=self.host, api_key=os.environ.get(settings.api_key_env) or LOCAL_KEY, max_retries=0,
            timeout=openai.Timeout(slowest, connect=settings.request_timeout))

    def _classify(self, exc: BaseException) -> Failure:
        return classify(exc, model=self.model, host=self.host, pull_hint=False)

    def uses_native_tools(self) -> bool:
        return self.settings.native_tools

    def reasons(self) -> bool:
        return self.settings.reasoning != "off"  # "auto": the server's model may well reason

    def _pieces(self, request: TurnRequest) -> Iterator[Piece]:
        settings = self.settings
        body: dict[str, Any] = {
            "model": self.model, "messages": request.messages, "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": request.options.get("temperature", settings.temperature),
            "max_tokens": request.options.get("num_predict", settings.reply_tokens),
        }
        if request.tools is not None:
            body["tools"] = request.tools
            body["tool_choice"] = "required"
        elif request.schema is not None:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "action", "schema": request.schema, "strict": False}}
        calls: dict[int, dict[str, str]] = {}  # native tool calls, assembled from their deltas
        reason = None
        stream = self._client.chat.completions.create(**body)
        try:
            for chunk in stream:
                usage = getattr(chunk, "usage", None)
                if usage is not None and not chunk.choices:
                    yield self._final(calls, reason, usage)
                    calls, reason = {}, "done"
                    continue
                for choice in chunk.choices:
                    delta = choice.delta
                    reason = choice.finish_reason or reason
                    extra = delta.model_extra or {}
                    thinking = extra.get("reasoning_content") or extra.get("reasoning") or ""
                    for call in delta.tool_calls or ():
                        entry = calls.setdefault(call.index, {"name": "", "arguments": ""})
                        if call.function is not None:
                            entry["name"] += call.function.name or ""
                            entry["arguments"] += call.function.arguments or ""
                    if delta.content or thinking:
                        yield Piece(content=delta.content or "", thinking=thinking)
        finally:
            stream.close()
        if reason != "done":  # a server that sends no usage chunk
            yield self._final(calls, reason, None)

    @staticmethod
    def _final(calls: dict[int, dict[str, str]], reason: str | None, usage: Any) -> Piece:
        content = ""
        if calls:
            first = calls[min(calls)]
            try:
                args = json.loads(first["arguments"] or "{}")
            except json.JSONDecodeError:
                args = first["arguments"]  # the parser explains what is wrong with it
            content = json.dumps({"tool": first["name"], "args": args}, ensure_ascii=False)
        prompt = getattr(usage, "prompt_tokens", None)
        return Piece(content=content, done=True, done_reason=reason, prompt_tokens=prompt, prompt_total=prompt,
                     eval_tokens=getattr(usage, "completion_tokens", None))

    # -- facts for the backend check ------------------------------------------------------------

    def probe(self) -> tuple[bool, str]:
        """(answers, detail): one GET of /models; any HTTP answer counts, bar 401/403."""
        return probe(self.settings)


def probe(settings: CoordinatorSettings, timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    import httpx

    base = (settings.base_url or "").rstrip("/")
    key = os.environ.get(settings.api_key_env)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        status = httpx.get(f"{base}/models", headers=headers, timeout=timeout).status_code
    except httpx.HTTPError as exc:
        return False, f"nothing answers at {base} ({type(exc).__name__}): start the server or fix base_url"
    if status in (401, 403):
        hint = f"set {settings.api_key_env}" if not key else f"check the key in {settings.api_key_env}"
        return False, f"{base} refused us ({status}): {hint} (api_key_env names the variable)"
    return True, f"{base} answers"
