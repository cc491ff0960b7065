"""User settings as pydantic models, one docstring per field.

Read from `config.toml` in the config directory (see `protocol.paths`); every field has a
default, so a missing file or section means "defaults". Environment variables named in a
field's docstring override the file. Parsing is pure: callers read the file.
"""

from __future__ import annotations

import os
import sys
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class TerminalSettings(_Section):
    scrollback: int = Field(10_000, ge=0, le=1_000_000)
    """Lines of history kept per tab above the visible screen."""

    cols: int = Field(120, ge=20, le=1000)
    """Width of a new tab's PTY before a UI resizes it (headless hosts keep it)."""

    rows: int = Field(40, ge=5, le=500)
    """Height of a new tab's PTY before a UI resizes it."""


class CoordinatorSettings(_Section):
    backend: Literal["auto", "ollama", "embedded"] = "auto"
    """Which LLM backend drives the coordinator; `TIKI_BACKEND` overrides. "auto" uses Ollama
    when it answers, else the embedded backend when its extra is installed (and says so)."""

    model: str = "gemma4:e4b"
    """Ollama model name; `TIKI_MODEL` overrides."""

    ollama_host: str | None = None
    """Ollama server address; `OLLAMA_HOST` overrides; default http://127.0.0.1:11434."""

    gguf_path: str | None = None
    """GGUF file for the embedded backend; empty means the bundled Gemma 3 270M toy model."""

    num_ctx: int = Field(8192, ge=512)
    """Context window requested from the backend (always sent)."""

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    """Sampling temperature; 0 makes runs repeatable."""

    think: bool = False
    """Ask thinking-capable models to think (their thoughts never reach the answer)."""

    native_tools: bool = False
    """Use Ollama's native `tools=` instead of a JSON-schema `format=` when the model lists
    the tools capability."""

    max_turns: int = Field(12, ge=1, le=100)
    """Model turns allowed in one run."""

    idle_timeout: float = Field(60.0, gt=0)
    """Seconds without a streamed chunk before a turn is abandoned."""

    turn_deadline: float = Field(300.0, gt=0)
    """Seconds one whole model turn may take."""

    request_timeout: float = Field(30.0, gt=0)
    """Seconds the HTTP client waits to connect or for a response to start."""

    allow_shell: bool = False
    """Let the coordinator type into shell tabs without asking (headless hosts)."""


class PeerSettings(_Section):
    ack_timeout: float = Field(120.0, gt=0)
    """Seconds a peer has to acknowledge the handshake before it is `not_connected` again."""

    continuations_per_minute: int = Field(6, ge=0)
    """Continuation runs a single peer may start per minute (AI-to-AI loop safety)."""


class UiSettings(_Section):
    panel: Literal["right", "bottom", "hidden"] = "right"
    """Where the agent panel docks."""

    theme: str = "textual-dark"
    """Textual theme name."""


class Settings(_Section):
    terminal: TerminalSettings = TerminalSettings()
    coordinator: CoordinatorSettings = CoordinatorSettings()
    peers: PeerSettings = PeerSettings()
    ui: UiSettings = UiSettings()


class SettingsError(ValueError):
    """The config file is not valid TOML or has a field of the wrong type; the message names it."""


def parse_settings(text: str, env: dict[str, str] | None = None) -> Settings:
    """Parse `config.toml` text and apply environment overrides."""
    try:
        data = tomllib.loads(text) if text.strip() else {}
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config.toml is not valid TOML: {exc}") from None
    data = _renamed_sections(data)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise SettingsError("config.toml: " + "; ".join(_explain(err) for err in exc.errors())) from None
    return apply_env(settings, os.environ if env is None else env)


def _renamed_sections(data: dict) -> dict:
    """`[reactor]` is the old name of `[coordinator]`: still read, with a one-line notice, so
    no user's config breaks."""
    if "reactor" not in data:
        return data
    data = dict(data)
    old = data.pop("reactor")
    if "coordinator" in data:
        raise SettingsError("config.toml has both [reactor] and [coordinator]: [reactor] is the old name; "
                            "move its settings into [coordinator]")
    data["coordinator"] = old
    notice("config.toml: [reactor] is now called [coordinator]; rename the section (read as before for now)")
    return data


_noticed: set[str] = set()


def notice(text: str) -> None:
    """A one-line notice on stderr, once per process (a `tiki serve` log, `tiki doctor`)."""
    if text not in _noticed:
        _noticed.add(text)
        print(f"tiki: {text}", file=sys.stderr)


def _explain(err: dict) -> str:
    where = ".".join(str(p) for p in err["loc"])
    if err["type"] == "extra_forbidden":
        section: type[BaseModel] = Settings
        for part in err["loc"][:-1]:
            section = section.model_fields[str(part)].annotation  # type: ignore[assignment]
        known = ", ".join(section.model_fields)
        return f"unknown setting '{where}' (known here: {known})"
    return f"{where}: {err['msg']}"


BACKENDS = ("auto", "ollama", "embedded")


def apply_env(settings: Settings, env: dict[str, str]) -> Settings:
    coordinator = settings.coordinator
    updates: dict[str, object] = {}
    backend = env.get("TIKI_BACKEND")
    if backend:
        if backend not in BACKENDS:
            raise SettingsError(f"TIKI_BACKEND={backend!r} is not a backend; use one of: {', '.join(BACKENDS)}")
        updates["backend"] = backend
    if env.get("TIKI_MODEL"):
        updates["model"] = env["TIKI_MODEL"]
    if env.get("OLLAMA_HOST"):
        updates["ollama_host"] = env["OLLAMA_HOST"]
    if updates:
        settings = settings.model_copy(update={"coordinator": coordinator.model_copy(update=updates)})
    return settings
