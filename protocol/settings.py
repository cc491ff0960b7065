"""User settings as pydantic models, one docstring per field.

Read from `config.toml` in the config directory (see `protocol.paths`); every field has a
default, so a missing file or section means "defaults". Environment variables named in a
field's docstring override the file. Parsing is pure: callers read the file.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

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
    backend: Literal["auto", "ollama", "embedded", "openai"] = "auto"
    """Which LLM backend drives the coordinator; `TIKI_BACKEND` overrides. "auto" uses Ollama
    when it answers, else the embedded backend when its extra is installed (and says so);
    "openai" is any OpenAI-compatible server at `base_url`."""

    model: str = "gemma4:e4b"
    """Model name (Ollama's, or the OpenAI-compatible server's); `TIKI_MODEL` overrides."""

    ollama_host: str | None = None
    """Ollama server address; `OLLAMA_HOST` overrides; default http://127.0.0.1:11434."""

    base_url: str | None = None
    """OpenAI-compatible server for backend = "openai", e.g. http://127.0.0.1:8080/v1
    (llama.cpp's server), http://127.0.0.1:1234/v1 (LM Studio), http://127.0.0.1:11434/v1
    (Ollama), https://api.openai.com/v1; `TIKI_BASE_URL` overrides."""

    api_key_env: str = "OPENAI_API_KEY"
    """The name of the environment variable that holds the API key for `base_url` (never the
    key itself); local servers need none."""

    gguf_path: str | None = None
    """GGUF file for the embedded backend; empty means the bundled Gemma 3 270M toy model."""

    threads: int = Field(0, ge=0)
    """llama.cpp threads for the embedded backend; 0 means the machine's physical cores."""

    num_ctx: int = Field(8192, ge=512)
    """Context window in tokens (sent to Ollama, used by the embedded backend); the
    conversation is compacted before it would overflow."""

    reply_tokens: int = Field(512, ge=64)
    """Tokens one reply may take (num_predict / max_tokens): room for the longest action, a
    `send_to_terminal` text or a `done` message."""

    think_tokens: int = Field(1024, ge=0)
    """Extra reply tokens when the model reasons before it acts."""

    result_tokens: int = Field(0, ge=0)
    """Tokens one tool result may take in the conversation (0: a quarter of num_ctx, at most
    2000); `read_terminal` keeps the most recent lines that fit."""

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    """Sampling temperature; 0 makes runs repeatable (a retry after a cut-off varies it)."""

    reasoning: Literal["auto", "on", "off"] = "auto"
    """Let reasoning models think before they act: "on", "off", or "auto" (the model's own
    default). Thinking is shown as progress and never reaches the answer."""

    native_tools: bool = False
    """Use native tool calls instead of a JSON-schema response format when the model supports
    them (Ollama lists the capability; OpenAI-compatible servers are trusted)."""

    max_turns: int = Field(12, ge=1, le=100)
    """Model turns allowed in one run."""

    first_token_timeout: float = Field(180.0, gt=0)
    """Seconds to wait for a turn's first token: loading the model and reading the prompt."""

    idle_timeout: float = Field(60.0, gt=0)
    """Seconds without a streamed chunk, once the reply has started, before a turn is abandoned."""

    turn_deadline: float = Field(300.0, gt=0)
    """Seconds one whole model turn may take."""

    request_timeout: float = Field(30.0, gt=0)
    """Seconds the HTTP client waits to connect."""

    relay_timeout: float = Field(120.0, gt=0)
    """Seconds `@Name ...` waits for the peer's bot-chat reply before showing its screen instead."""

    allow_shell: bool = False
    """Let the coordinator type into shell tabs without asking (headless hosts)."""

    @model_validator(mode="before")
    @classmethod
    def _old_think(cls, data: Any) -> Any:
        if isinstance(data, dict) and "think" in data:
            data = dict(data)
            think = data.pop("think")
            data.setdefault("reasoning", "on" if think else "off")
            notice('config.toml: `think = ...` is now `reasoning = "on" | "off" | "auto"` (read as before for now)')
        return data

    @model_validator(mode="after")
    def _room_for_a_reply(self) -> "CoordinatorSettings":
        if self.reply_tokens > self.num_ctx // 2:
            raise ValueError(f"reply_tokens ({self.reply_tokens}) must be at most half of num_ctx "
                             f"({self.num_ctx}): lower reply_tokens or raise num_ctx")
        return self

    def result_budget(self) -> int:
        return self.result_tokens or min(2000, self.num_ctx // 4)

    def reply_budget(self, reasoning: bool) -> int:
        return self.reply_tokens + (self.think_tokens if reasoning else 0)


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


class KeySettings(_Section):
    prefix: str = "ctrl+\\"
    """The key before tikitaka's own commands in the UI (prefix then `d` detaches, `?` lists
    them all), spelled as `tiki terminal-key` spells keys; the prefix twice sends it to the
    program in the tab. Every other key goes to the program."""


class Settings(_Section):
    terminal: TerminalSettings = TerminalSettings()
    coordinator: CoordinatorSettings = CoordinatorSettings()
    peers: PeerSettings = PeerSettings()
    ui: UiSettings = UiSettings()
    keys: KeySettings = KeySettings()


class SettingsError(ValueError):
    """The config file is not valid TOML or has a field of the wrong type; the message names it."""


def parse_settings(text: str, env: Mapping[str, str] | None = None) -> Settings:
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


def _explain(err: Mapping[str, Any]) -> str:
    where = ".".join(str(p) for p in err["loc"])
    if err["type"] == "extra_forbidden":
        section: type[BaseModel] = Settings
        for part in err["loc"][:-1]:
            section = section.model_fields[str(part)].annotation  # type: ignore[assignment]
        known = ", ".join(section.model_fields)
        return f"unknown setting '{where}' (known here: {known})"
    return f"{where}: {err['msg']}"


BACKENDS = ("auto", "ollama", "embedded", "openai")


def apply_env(settings: Settings, env: Mapping[str, str]) -> Settings:
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
    if env.get("TIKI_BASE_URL"):
        updates["base_url"] = env["TIKI_BASE_URL"]
    if updates:
        settings = settings.model_copy(update={"coordinator": coordinator.model_copy(update=updates)})
    return settings
