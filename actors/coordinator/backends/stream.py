"""One streamed model turn, whatever the backend: timers, retries, cancellation, cut-offs.

A backend supplies `_pieces(request)`, an iterator of backend-neutral `Piece`s read from its
client, and `_classify(exc)`. The iterator runs on a helper thread that hands pieces over
through a queue, so the turn's own thread enforces three timers exactly: the first token
(loading the model and reading the prompt may take long), the gap between chunks once the
reply has started (idle), and the whole turn (deadline); a cancel returns at once even while
the server is silent. A turn that already produced output is never retried (it was shown);
before that, 5xx, 429, refused/reset connections and timeouts are retried with backoff
2, 4, 8, ... s (capped at 30, 5 attempts).
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ....protocol.llm_errors import MAX_ATTEMPTS, Failure, backoff
from ....protocol.think import ThinkStripper


class LlmError(Exception):
    """The turn failed for good; the message is for the user."""


class ContextOverflow(LlmError):
    """The backend refused the prompt as longer than its window (the loop compacts and retries)."""


class Cancelled(Exception):
    pass


@dataclass
class Piece:
    """One streamed chunk, whatever the backend."""

    content: str = ""
    thinking: str = ""
    done: bool = False
    done_reason: str | None = None  # "length" when the reply hit the token budget
    prompt_tokens: int | None = None  # prompt tokens the backend evaluated (a cache may skip some)
    prompt_total: int | None = None  # tokens in the whole prompt, when the backend says
    eval_tokens: int | None = None


@dataclass
class TurnOutput:
    text: str  # the visible output, think tags removed
    tokens: int  # tokens generated (the backend's count when it gives one)
    prompt_tokens: int | None
    eval_tokens: int | None
    prompt_total: int | None = None
    cut_off: bool = False  # the reply hit the token budget: it is incomplete
    thinking: str = ""  # reasoning, shown as progress, never part of the answer
    first_token: float = 0.0  # seconds until the first chunk (model load + prompt)
    seconds: float = 0.0


@dataclass
class TurnRequest:
    messages: list[dict[str, Any]]
    schema: dict[str, Any] | None
    tools: list[dict[str, Any]] | None
    options: dict[str, Any] = field(default_factory=dict)


Progress = Callable[[int, int], None]  # (content tokens so far, thinking tokens so far)
_END = object()


class StreamingBackend:
    name = "?"
    host = "?"  # where the backend answers, for messages
    model = "?"

    def __init__(self, settings: Any, sleep: Callable[[float, threading.Event], None] | None = None) -> None:
        self.settings = settings
        self._sleep = sleep or (lambda seconds, cancel: cancel.wait(seconds))

    # -- what a backend provides ---------------------------------------------------------------

    def _pieces(self, request: TurnRequest) -> Iterator[Piece]:
        raise NotImplementedError

    def _classify(self, exc: BaseException) -> Failure:
        raise NotImplementedError

    def uses_native_tools(self) -> bool:
        return False

    def reasons(self) -> bool:
        """Whether replies may start with reasoning (the reply budget grows by think_tokens)."""
        return self.settings.reasoning == "on"

    def count_tokens(self, text: str) -> int | None:
        """Exact token count of `text` when the backend can tell cheaply, else None."""
        return None

    def load_info(self) -> tuple[str, int] | None:
        """(model, bytes) when the next turn will first have to load the model, else None."""
        return None

    # -- a turn --------------------------------------------------------------------------------

    def chat(self, messages: list[dict[str, Any]], *, schema: dict[str, Any] | None, cancel: threading.Event,
             on_progress: Progress, options: dict[str, Any] | None = None,
             tools: list[dict[str, Any]] | None = None) -> TurnOutput:
        """One turn. `tools` (native tool definitions) replace `schema` only when the user
        asked for native tools and the model supports them: never both."""
        if tools is not None and self.uses_native_tools():
            schema = None
        else:
            tools = None
        request = TurnRequest(messages, schema, tools, dict(options or {}))
        last_error = ""
        for attempt in range(MAX_ATTEMPTS):
            shown = [False]
            try:
                return self._stream(request, cancel, on_progress, shown)
            except (Cancelled, LlmError):
                raise
            except Exception as exc:  # noqa: BLE001 - classified below, never a traceback
                failure = self._classify(exc)
                if failure.overflow:
                    raise ContextOverflow(failure.message) from None
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

    def _stream(self, request: TurnRequest, cancel: threading.Event, on_progress: Progress,
                shown: list[bool]) -> TurnOutput:
        settings = self.settings
        chunks: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def pump() -> None:
            try:
                for piece in self._pieces(request):
                    if stop.is_set():
                        return
                    chunks.put(piece)
                chunks.put(_END)
            except BaseException as exc:  # handed to the turn's thread, which classifies it
                chunks.put(exc)

        threading.Thread(target=pump, name=f"tiki-{self.name}-stream", daemon=True).start()
        stripper = ThinkStripper()
        text: list[str] = []
        tokens = thought = 0
        final: Piece | None = None
        started = time.monotonic()
        first = 0.0
        deadline = started + settings.turn_deadline
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise LlmError(f"the model's turn took longer than {settings.turn_deadline:g} s (deadline)")
                wait = settings.idle_timeout if first else settings.first_token_timeout
                item = self._next(chunks, min(wait, remaining), cancel)
                if item is None:
                    if deadline - time.monotonic() <= 0:
                        continue  # reported as the deadline on the next pass
                    if not first:
                        raise LlmError(f"no first token within {settings.first_token_timeout:g} s (loading "
                                       "the model and reading the prompt); raise first_token_timeout for a slow machine")
                    raise LlmError(f"the model sent nothing for {settings.idle_timeout:g} s (idle timeout)")
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                if not first:
                    first = time.monotonic() - started
                if item.content:
                    shown[0] = True
                    tokens += 1
                    text.append(stripper.feed(item.content))
                if item.thinking:
                    thought += 1
                    stripper.thinking.append(item.thinking)
                if item.content or item.thinking:
                    on_progress(tokens, thought + stripper.thought_chunks)
                if item.done:
                    final = item
                    break
        finally:
            stop.set()
        text.append(stripper.flush())
        eval_tokens = final.eval_tokens if final else None
        return TurnOutput(
            "".join(text).strip(), eval_tokens or tokens,
            final.prompt_tokens if final else None, eval_tokens,
            prompt_total=final.prompt_total if final else None,
            cut_off=bool(final and final.done_reason == "length"),
            thinking="".join(stripper.thinking), first_token=first, seconds=time.monotonic() - started,
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
