"""User settings as pydantic models, one docstring per field.

Read from `config.toml` in the config directory (see `protocol.paths`) by `config_file`; every
field has a default, so a missing file or section means "defaults". Environment variables
named in a field's docstring override the file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .keys import UnknownKey, canonical_key


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
    """Seconds `@Name ...` waits for a peer at work to take the question (it is typed once the peer
    is idle), then for its bot-chat reply, before showing its screen instead."""

    allow_shell: bool = False
    """Let the coordinator type into shell tabs without asking (headless hosts)."""

    consent_timeout: float = Field(300.0, gt=0)
    """Seconds a question to the attached UIs (may the coordinator type into this shell tab?)
    waits for an answer before it counts as no."""

    transcript_days: int = Field(30, ge=0)
    """Days of run transcripts kept in the state directory (older days' files are removed
    when a day's first run is recorded); 0 keeps every one."""

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


class NotifySettings(_Section):
    """When a tab needs the user: the host publishes a notification event for each of the
    moments below that is on; the TUI shows the ones it is told to in the ways below."""

    waiting: bool = True
    """A tab enters `waiting`: it asks the user (a permission prompt, a question, a sign-in)."""

    done: bool = True
    """A tab goes from `working` to `idle`: its agent finished a turn."""

    done_after: float = Field(3.0, ge=0)
    """Seconds a tab must have been `working` for its return to `idle` to count as done (a
    shell that prints a line is not news)."""

    program: bool = True
    """Pass on the desktop notifications a program prints itself (OSC 9, OSC 99, OSC 777) and
    its bells (BEL: rung in the terminal the TUI runs in, as tmux does, and a badge on a tab
    that is not in front)."""

    badge: bool = True
    """Mark the tab in the tab bar (distinct for waiting and for done-unseen) until you look."""

    toast: bool = True
    """Show a toast in the TUI."""

    osc9: bool = True
    """Write OSC 9 (iTerm2, WezTerm, kitty, Windows Terminal) to the terminal the TUI runs in."""

    osc777: bool = True
    """Write OSC 777 (urxvt, Ghostty, foot, VTE) to the terminal the TUI runs in."""

    bell: bool = True
    """Ring the bell (BEL) of the terminal the TUI runs in."""

    background_only: bool = True
    """Only for tabs that are not in front in the TUI (a tab you are looking at needs no badge)."""


DEFAULT_PREFIX = "ctrl+\\"


# Keys whose bytes (ESC, ESC [, ESC O) begin the terminal's own sequences: never a prefix.
SEQUENCE_STARTS = frozenset({"esc", "ctrl+[", "alt+[", "alt+O"})


class KeySettings(_Section):
    prefix: str = DEFAULT_PREFIX
    """The key before tikitaka's own commands in the UI (prefix then `d` detaches, `?` lists
    them all), spelled as `tiki terminal-key` spells keys; the prefix twice sends it to the
    program in the tab. Every other key goes to the program."""

    @field_validator("prefix")
    @classmethod
    def _a_command_key(cls, name: str) -> str:
        # Checked with the rest of the file (by the host, for itself and for each UI that
        # attaches), so a bad prefix is named before anything starts.
        try:
            key = canonical_key(name)
        except UnknownKey as exc:
            raise ValueError(f"{name!r} is not a key ({exc}); write it as `tiki terminal-key` does, e.g. "
                             f'prefix = "ctrl+t" (the default is "{DEFAULT_PREFIX}")') from None
        if len(key) == 1 or key == "space":
            raise ValueError(f"{name!r} is a plain character, which could never be typed into a program; "
                             'use a control key such as "ctrl+t"')
        if key in SEQUENCE_STARTS:  # (every arrow, F-key and mouse report would begin with the prefix)
            raise ValueError(f"{name!r} is how the terminal starts its escape sequences (the arrow keys, F-keys, "
                             'the mouse): use a control key such as "ctrl+t"')
        return name


class Settings(_Section):
    terminal: TerminalSettings = TerminalSettings()
    coordinator: CoordinatorSettings = CoordinatorSettings()
    peers: PeerSettings = PeerSettings()
    notify: NotifySettings = NotifySettings()
    keys: KeySettings = KeySettings()
