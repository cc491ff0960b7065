"""Which LLM backend failures are final, which are worth retrying, and how long to wait.

Classified by what the `ollama` client really raises: `ResponseError` (with `status_code`),
`ConnectionError` (connection refused), and raw `httpx` errors while streaming.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_ATTEMPTS = 5


@dataclass(frozen=True)
class Failure:
    final: bool
    message: str


def backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt number `attempt` (0-based): 2, 4, 8, 16, 30."""
    return min(30.0, 2.0 * 2 ** attempt)


def classify(exc: BaseException, *, model: str, host: str) -> Failure:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    detail = str(getattr(exc, "error", "") or exc).strip() or name
    if isinstance(status, int) and status > 0:
        if status == 404:
            return Failure(True, f"model '{model}' is not available on {host}: run `ollama pull {model}`"
                                 " (or set TIKI_MODEL to a model you have)")
        if status in (401, 403):
            return Failure(True, f"{host} refused the request ({status} forbidden): check OLLAMA_HOST "
                                 "and any proxy or API key in front of it")
        if status == 429 or status >= 500:
            return Failure(False, f"{host} answered {status}: {detail}")
        return Failure(True, f"{host} answered {status}: {detail}")
    if type(exc) is ConnectionError and "Failed to connect to Ollama" in detail:
        # the client's own wording for a refused connection is a paragraph; say it shortly
        return Failure(False, f"nothing answers at {host} (is `ollama serve` running? "
                              "OLLAMA_HOST points elsewhere)")
    if isinstance(exc, (ConnectionError, TimeoutError, OSError)) or name in _RETRYABLE_HTTPX:
        return Failure(False, f"cannot reach {host} ({name}: {detail})")
    if name == "ResponseError":  # an error line inside the stream (status -1)
        return Failure(False, f"{host} reported an error: {detail}")
    return Failure(True, f"{name}: {detail}")


_RETRYABLE_HTTPX = {
    "ConnectError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "ReadError",
    "WriteError", "RemoteProtocolError", "NetworkError", "TimeoutException", "TransportError",
}
