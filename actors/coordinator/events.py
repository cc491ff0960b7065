"""Progress events of coordinator runs, published on the host's bus (the TUI shows them,
`tiki ask` streams them). Each carries its run id and turns into JSON for the wire."""

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
class RunStarted(RunEvent):
    prompt: str
    source: str


@dataclass(frozen=True)
class Thinking(RunEvent):
    turn: int


@dataclass(frozen=True)
class Generating(RunEvent):
    tokens: int


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
    """The model's output could not be used; `message` is what it was told."""

    message: str


@dataclass(frozen=True)
class ConsentNeeded(RunEvent):
    request_id: str
    tab: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunDone(RunEvent):
    message: str


@dataclass(frozen=True)
class RunError(RunEvent):
    reason: str


_KINDS = {
    RunStarted: "started", Thinking: "thinking", Generating: "generating", ToolStart: "tool_start",
    ToolEnd: "tool_end", Correction: "correction", ConsentNeeded: "consent_needed", RunDone: "done",
    RunError: "error",
}
FINAL = (RunDone, RunError)
