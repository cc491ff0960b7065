"""The shapes of the agent-state parts of the tab ops (issue 12), kept apart from `ops` so that
file stays readable: a tab row's `agent` entry, `tiki explain`'s reply, and the `queued` event a
send to a working agent streams before its reply. `ops` imports them; read it first.
"""

from __future__ import annotations

from typing import Literal, TypedDict

AgentState = Literal["starting", "working", "waiting", "idle", "exited", "unknown"]


class AgentRow(TypedDict):
    """A tab's agent state (terminals/agent_state): whose rules decided, the state, since when
    (seconds since the epoch) and why (the rule and what it matched)."""

    kind: str
    state: AgentState
    since: float | None
    reason: str


class Queued(TypedDict):
    """The event `terminal.send` streams when the text must wait for the agent to be idle."""

    event: Literal["queued"]
    name: str
    state: AgentState
    reason: str
    position: int


class Explained(TypedDict):
    """`tiki explain`: a tab's agent state and how it was decided."""

    name: str
    kind: str
    kind_name: str
    identified_by: Literal["command", "title", "screen", "default"]
    command: list[str]  # the command in the terminal's foreground (else the tab's)
    state: AgentState
    since: float
    rule: str
    description: str
    source: str  # the rules file that holds the rule
    evidence: str  # the text or signal it matched
    last_output_s: float | None
    recheck_s: float | None  # when a quiet-period rule is due, from now
    screen: str  # the rows the matched rule looked at (waiting: what it asks)
    rule_errors: list[str]  # user rules files that were left out, and why
