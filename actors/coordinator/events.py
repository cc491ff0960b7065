"""Progress events of coordinator runs, published on the host's bus (the TUI shows them,
`tiki ask` streams them). Each carries its run id and turns into JSON for the wire.

A run goes: started, maybe loading (the model is being loaded), then per turn: turn
(the prompt's size as it is read), generating (tokens, rate, seconds; thinking too), then a
tool start/end pair or a correction; compacted when older results were shortened to fit the
window; and one final event, done or error, with the run's turns, tokens and seconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class RunEvent:
    run_id: str

    @property
    def kind(self) -> str:
        return _KINDS[type(self)]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class RunQueued(RunEvent):
    """A run was accepted: `behind` is the run it waits for (None: none), `ahead` runs go first."""

    prompt: str
    source: str
    behind: str | None = None
    behind_prompt: str = ""
    ahead: int = 0


@dataclass(frozen=True)
class RunStarted(RunEvent):
    prompt: str
    source: str


@dataclass(frozen=True)
class Loading(RunEvent):
    """The model is being loaded (in process, or by the server) before the first token."""

    model: str
    megabytes: float = 0.0


@dataclass(frozen=True)
class TurnStarted(RunEvent):
    """A model turn begins: the backend reads a prompt of `prompt_tokens` (an estimate when
    the backend cannot count)."""

    turn: int
    prompt_tokens: int


@dataclass(frozen=True)
class Generating(RunEvent):
    """The reply streams: `tokens` so far (and `thinking` tokens of reasoning), at `rate`
    tokens per second, `seconds` into the turn. `final` is the turn's last word on it."""

    turn: int
    tokens: int
    rate: float = 0.0
    seconds: float = 0.0
    thinking: int = 0
    final: bool = False


@dataclass(frozen=True)
class ToolStart(RunEvent):
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolEnd(RunEvent):
    tool: str
    args: dict[str, Any]
    result: dict[str, Any]
    duration: float


@dataclass(frozen=True)
class Correction(RunEvent):
    """The model's output could not be used: `cause` says why (cut off, not JSON, ...),
    `message` is what the model was told."""

    message: str
    cause: str = "format"


@dataclass(frozen=True)
class Compacted(RunEvent):
    """Older parts of the conversation were shortened to fit the context window."""

    before: int
    after: int
    note: str = ""


@dataclass(frozen=True)
class ConsentNeeded(RunEvent):
    request_id: str
    tab: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunDone(RunEvent):
    message: str
    turns: int = 0
    tokens: int = 0
    seconds: float = 0.0
    unasked: list[str] = field(default_factory=list)  # peers the request named that were never asked


@dataclass(frozen=True)
class RunError(RunEvent):
    reason: str
    turns: int = 0
    tokens: int = 0
    seconds: float = 0.0
    code: str = ""  # an ipc error code when the failure has its own exit code (a relay's "timeout")


_KINDS = {
    RunQueued: "queued", RunStarted: "started", Loading: "loading", TurnStarted: "turn", Generating: "generating",
    ToolStart: "tool_start", ToolEnd: "tool_end", Correction: "correction", Compacted: "compacted",
    ConsentNeeded: "consent_needed", RunDone: "done", RunError: "error",
}
FINAL = (RunDone, RunError)
