"""Which LLM backend failures are final, which are worth retrying, and how long to wait.

Classified by what the clients really raise: the `ollama` client's `ResponseError` (with
`status_code`) and `ConnectionError`, the `openai` client's status and connection errors, and
raw `httpx` errors while streaming. A prompt the backend refuses as longer than its window is
its own class (`overflow`): the coordinator compacts the conversation and tries again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ATTEMPTS = 5
_OVERFLOW = re.compile(r"context (window|length)|exceeds? (the )?(context|maximum)|too (long|many tokens)"
                       r"|context_length_exceeded|maximum context", re.I)


@dataclass(frozen=True)
class Failure:
    final: bool
    message: str
    overflow: bool = False


def backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt number `attempt` (0-based): 2, 4, 8, 16, 30."""
    return min(30.0, 2.0 * 2 ** attempt)


def classify(exc: BaseException, *, model: str, host: str, pull_hint: bool = True) -> Failure:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    detail = str(getattr(exc, "error", "") or getattr(exc, "message", "") or exc).strip() or name
    if _OVERFLOW.search(detail) and (status is None or status in (-1, 400, 413, 500)):
        return Failure(True, f"the prompt is longer than the model's context window ({detail[:200]})", overflow=True)
    if isinstance(status, int) and status > 0:
        if status == 404:
            fix = f"run `ollama pull {model}`" if pull_hint else "check the model name and base_url"
            return Failure(True, f"model '{model}' is not available on {host}: {fix}"
                                 " (or set TIKI_MODEL to a model you have)")
        if status == 401:
            return Failure(True, f"{host} refused the request (401 unauthorized): check the API key "
                                 "(the environment variable named by api_key_env)")
        if status == 403:
            return Failure(True, f"{host} refused the request (403 forbidden): check the address, your plan "
                                 "or API key, and any proxy in front of it")
        if status in (408, 409, 429) or status >= 500:
            return Failure(False, f"{host} answered {status}: {detail[:300]}")
        return Failure(True, f"{host} answered {status}: {detail[:300]}")
    if type(exc) is ConnectionError and "Failed to connect to Ollama" in detail:
        # the client's own wording for a refused connection is a paragraph; say it shortly
        return Failure(False, f"nothing answers at {host} (is `ollama serve` running? "
                              "OLLAMA_HOST points elsewhere)")
    if isinstance(exc, (ConnectionError, TimeoutError, OSError)) or name in _RETRYABLE:
        return Failure(False, f"cannot reach {host} ({name}: {detail[:200]})")
    if name == "ResponseError":  # an error line inside the stream (status -1)
        return Failure(False, f"{host} reported an error: {detail[:300]}")
    return Failure(True, f"{name}: {detail[:300]}")


_RETRYABLE = {
    "ConnectError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "ReadError",
    "WriteError", "RemoteProtocolError", "NetworkError", "TimeoutException", "TransportError",
    "APIConnectionError", "APITimeoutError",
}
