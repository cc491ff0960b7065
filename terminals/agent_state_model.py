"""The agent-state rules' data model: states, regions, rules and one CLI's profile.

Built and validated by `agent_state_rules`, read by `agent_state`; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from .agent_state_match import Matcher

STATES = ("starting", "working", "waiting", "idle", "exited", "unknown")
FALLBACK_KIND = "shell"  # the rules used when a tab's program is not a known agent


class AgentRulesError(ValueError):
    """A rules file that cannot be used; the message names the file, the rule and the fix."""


@dataclass(frozen=True)
class Region:
    kind: str  # screen | bottom | top | above_cursor | cursor_line
    rows: int = 0

    def __str__(self) -> str:
        return f"{self.kind}:{self.rows}" if self.rows else self.kind


@dataclass(frozen=True)
class Rule:
    name: str
    state: str
    source: str
    region: Region = Region("screen")
    match: tuple[Matcher, ...] = ()
    not_match: tuple[Matcher, ...] = ()
    title: Matcher | None = None
    cursor: bool | None = None  # True: visible, False: hidden
    alt_screen: bool | None = None
    blank: bool | None = None
    exited: bool | None = None
    notification: Matcher | None = None
    bell: bool | None = None
    signal_within: float | None = None
    quiet_for: float | None = None
    output_within: float | None = None
    started_within: float | None = None
    recognised: bool | None = None  # has any screen/title/signal rule matched since the start?
    job: bool | None = None  # True: a command the tab's program started holds its terminal
    reading: bool | None = None  # True: the program in front waits in a read of the terminal
    listening: bool | None = None  # True: a thread of the job in front waits for the terminal's input
    description: str = ""

    @property
    def recognises(self) -> bool:
        """A rule that matched on what the program showed, not only on time or modes."""
        return bool(self.match or self.title or self.notification or self.bell)


@dataclass(frozen=True)
class AgentProfile:
    kind: str
    name: str
    commands: tuple[str, ...]
    signature: Matcher | None
    signature_title: Matcher | None
    signature_region: Region
    rules: tuple[Rule, ...]
    sources: tuple[str, ...]
