"""The agent state of one tab, from what its screen shows: rules in, verdict out.

Pure code, no threads and no timers: the caller builds a `ScreenFacts` (visible rows, cursor,
title, modes, the notifications and bells seen since the last call, output and start times,
exit status, the command) when the screen changed, or at `recheck_at` for the quiet-period
rules, and asks an `AgentStateDetector` for a `Verdict`: the state, the rule that matched and
what it matched on, which is what `tiki explain` prints.

Which rules apply: the tab's command names the kind (`agent_state_kind`); when it names none
(a shell, `node cli.js`) each agent's screen or title signature is tried, and the generic
`shell` rules are used when none matches. Rules are tried in order and the first whose every
condition holds wins (`agent_state_rules` loads and compiles them once).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

from .agent_state_evidence import evidence, line_of
from .agent_state_model import FALLBACK_KIND, AgentProfile, Region, Rule
from .agent_state_rules import RuleBook
from .agent_state_signals import Notification

SIGNAL_GRACE = 0.25  # a notification is current while the program printed nothing after it
SIGNAL_MEMORY = 120.0  # seconds a notification or bell is remembered at most


@dataclass(frozen=True)
class ScreenFacts:
    rows: Sequence[str]  # the visible rows as plain text, top first
    cursor: tuple[int, int, bool] = (0, 0, True)  # row, col, visible
    title: str = ""
    alt_screen: bool = False
    notifications: Sequence[Notification] = ()  # seen since the last evaluation
    now: float = 0.0  # monotonic seconds, the clock of every other time here
    last_output_at: float | None = None  # None: nothing printed yet
    started_at: float | None = None
    exited: bool = False
    exit_code: int | None = None
    command: Sequence[str] = ()  # the tab's command, or the PTY's foreground command when known
    # The tab's own program holds the terminal (nothing it started runs), False while a command
    # it started does (a shell's job), None where that cannot be known (no /proc, no `ps`).
    leader_in_front: bool | None = None
    # The program in front waits in a read of the terminal (Linux), None where that is not known.
    reading: bool | None = None
    # A thread of the job in front waits for the terminal's input: in epoll with it in the set, or a
    # reader thread (Linux; False where not known).
    listening: bool = False


class Verdict(NamedTuple):
    state: str
    rule: str  # the rule's name in its kind's file
    evidence: str  # the text or signal it matched
    kind: str  # whose rules decided: claude, codex, ..., shell

    def describe(self) -> str:
        return f"{self.state} ({self.kind}/{self.rule}): {self.evidence}"


def screen_facts(screen, *, now: float, last_output_at: float | None, started_at: float | None = None,
                 notifications: Sequence[Notification] = (), exited: bool = False,
                 exit_code: int | None = None, command: Sequence[str] = ()) -> ScreenFacts:
    """Facts from a `terminals.screen.Screen` (its public rows, cursor, title and modes)."""
    rows = screen.text(screen.rows).split("\n")  # rows from the top; blank rows below are left out
    return ScreenFacts(rows, screen.cursor, screen.title, screen.alt_screen, notifications, now,
                       last_output_at, started_at, exited, exit_code, command)


class _View:
    """One evaluation's facts, with each region's text cut once and shared by the rules."""

    def __init__(self, facts: ScreenFacts, recent: Sequence[Notification], recognised: bool = False) -> None:
        self.facts = facts
        self.recent = recent
        self.recognised = recognised
        self.rows = rows = [row.rstrip() for row in facts.rows]
        last = len(rows) - 1
        while last >= 0 and not rows[last]:
            last -= 1
        self.last = last  # the last row with text on it, -1 on a blank screen
        self._texts: dict[Region, str] = {}
        if facts.last_output_at is not None:
            self.quiet = facts.now - facts.last_output_at
        else:
            self.quiet = facts.now - facts.started_at if facts.started_at is not None else math.inf

    def text(self, region: Region) -> str:
        text = self._texts.get(region)
        if text is None:
            text = "\n".join(self._rows(region))
            self._texts[region] = text
        return text

    def _rows(self, region: Region) -> list[str]:
        row = self.facts.cursor[0]
        if region.kind == "bottom":  # counted up from the last row with text on it
            return self.rows[max(0, self.last + 1 - region.rows): self.last + 1]
        if region.kind == "top":
            return self.rows[: region.rows]
        if region.kind == "above_cursor":
            return self.rows[max(0, row - region.rows): row]
        if region.kind == "cursor_line":
            return self.rows[row: row + 1]
        return self.rows

    def signal(self, rule: Rule) -> Notification | None:
        """The newest current notification or bell that the rule asks for."""
        facts = self.facts
        for note in reversed(self.recent):
            if rule.signal_within is not None:
                if facts.now - note.at > rule.signal_within:
                    return None
            elif facts.last_output_at is not None and facts.last_output_at - note.at > SIGNAL_GRACE:
                return None  # the program printed more since: the signal is history
            if rule.bell and note.kind == "bel" or rule.notification and note.kind != "bel" \
                    and rule.notification.search(note.text):
                return note
        return None


def check(rule: Rule, view: _View) -> str | None:
    """The evidence when every condition of `rule` holds, else None. Cheap conditions first."""
    facts = view.facts
    if rule.exited is not None and rule.exited != facts.exited:
        return None
    if rule.alt_screen is not None and rule.alt_screen != facts.alt_screen:
        return None
    if rule.cursor is not None and rule.cursor != facts.cursor[2]:
        return None
    if rule.blank is not None and rule.blank != (view.last < 0):
        return None
    if rule.recognised is not None and rule.recognised != view.recognised:
        return None
    if rule.job is not None and (facts.leader_in_front is None or rule.job == facts.leader_in_front):
        return None
    if rule.reading is not None and (facts.reading is None or rule.reading != facts.reading):
        return None
    if rule.listening is not None and rule.listening != facts.listening:
        return None
    if rule.started_within is not None and (facts.started_at is None
                                            or facts.now - facts.started_at > rule.started_within):
        return None
    if rule.quiet_for is not None and view.quiet < rule.quiet_for:
        return None
    if rule.output_within is not None and not view.quiet < rule.output_within:
        return None
    signal = view.signal(rule) if rule.bell or rule.notification else None
    if (rule.bell or rule.notification) and signal is None:
        return None
    title = rule.title.search(facts.title) if rule.title else None
    if rule.title and title is None:
        return None
    rows: list[str] = []
    if rule.match or rule.not_match:
        text = view.text(rule.region)
        if any(pattern.search(text) for pattern in rule.not_match):
            return None
        for pattern in rule.match:
            hit = pattern.search(text)
            if hit is None:
                return None
            row = line_of(hit, text)
            if row not in rows:
                rows.append(row)
    return evidence(rule, view, rows, title is not None, signal)


def evaluate(profile: AgentProfile, facts: ScreenFacts, recent: Sequence[Notification] = (),
             recognised: bool = False, view: _View | None = None) -> tuple[Verdict, Rule | None]:
    """The first rule of `profile` that holds for `facts`, and the verdict it gives. `recent` are
    the remembered signals; `recognised` says whether a screen rule has matched before."""
    view = view or _View(facts, recent, recognised)
    for rule in profile.rules:
        evidence = check(rule, view)
        if evidence is not None:
            return Verdict(rule.state, rule.name, evidence, profile.kind), rule
    return Verdict("unknown", "no-rule-matched", f"none of the {len(profile.rules)} rules held", profile.kind), None


def next_change(profile: AgentProfile, facts: ScreenFacts, recent: Sequence[Notification] = ()) -> float | None:
    """The earliest later time at which a time condition of `profile` changes its answer."""
    times: list[float] = []
    output = facts.last_output_at if facts.last_output_at is not None else facts.started_at
    for rule in profile.rules:
        if rule.quiet_for is not None and output is not None:
            times.append(output + rule.quiet_for)
        if rule.output_within is not None and facts.last_output_at is not None:
            times.append(facts.last_output_at + rule.output_within)
        if rule.started_within is not None and facts.started_at is not None:
            times.append(facts.started_at + rule.started_within)
        if rule.signal_within is not None and recent:
            times.append(recent[-1].at + rule.signal_within)
    later = [t for t in times if t > facts.now]
    return min(later) if later else None


class AgentStateDetector:
    """One tab's detector: which rules apply, the signals remembered, the verdict and since when."""

    def __init__(self, rulebook: RuleBook) -> None:
        self.rulebook = rulebook
        self.verdict = Verdict("starting", "not-evaluated", "nothing evaluated yet", FALLBACK_KIND)
        self.since: float | None = None  # when the current state began
        self.recheck_at: float | None = None  # evaluate again then, even if the screen is unchanged
        self.recognised = False  # a rule matched on the program's screen, title or signals
        self.rule: Rule | None = None  # the rule that gave the verdict (None: no rule held)
        self.identified_by = "default"  # how the kind was known: command, title, screen, default
        self._recent: deque[Notification] = deque(maxlen=32)

    def evaluate(self, facts: ScreenFacts) -> Verdict:
        self._recent.extend(facts.notifications)
        while self._recent and facts.now - self._recent[0].at > SIGNAL_MEMORY:
            self._recent.popleft()
        view = _View(facts, self._recent, self.recognised)  # regions cut once, for signatures and rules
        profile = self.profile_for(facts, view)
        verdict, rule = evaluate(profile, facts, view=view)
        self.rule = rule
        self.recognised = self.recognised or (rule is not None and rule.recognises)
        if verdict.state != self.verdict.state or self.since is None:
            self.since = facts.now
        self.verdict = verdict
        self.recheck_at = next_change(profile, facts, self._recent)
        return verdict

    def profile_for(self, facts: ScreenFacts, view: _View | None = None) -> AgentProfile:
        """The kind named by the command, else the agent whose signature shows, else shell.

        In a tab whose command is a shell, a title proves nothing (shells seldom reset the title
        a program left behind), so only screen signatures count there; and an agent's last frame
        stays on screen after it exits: the PTY's foreground command, when the caller passes it
        as `facts.command`, is what tells them apart -- a shell that holds its own terminal
        (`leader_in_front`) is at its prompt, so no signature counts then."""
        profiles = self.rulebook.profiles
        kind = self.rulebook.identify(facts.command)
        last = self.verdict.kind
        if facts.exited and kind in (None, FALLBACK_KIND) and last != FALLBACK_KIND and last in profiles:
            # `sh -c 'exec claude'` that ended: only the tab's command (a shell) is left to name
            # the agent, and the last frame may show nothing of it; the tab ran what was known.
            return profiles[last]
        if kind is not None and (kind != FALLBACK_KIND or facts.leader_in_front):
            self.identified_by = "command"  # a shell at its own prompt runs no agent, whatever the screen shows
            return profiles[kind]
        view = view or _View(facts, ())
        titles = kind is None
        for candidate in _ordered(profiles, self.verdict.kind):  # last time's kind first: no flapping
            profile = profiles[candidate]
            if titles and profile.signature_title and profile.signature_title.search(facts.title):
                self.identified_by = "title"
                return profile
            if profile.signature and profile.signature.search(view.text(profile.signature_region)):
                self.identified_by = "screen"
                return profile
        self.identified_by = "command" if kind == FALLBACK_KIND else "default"
        return profiles[FALLBACK_KIND]


def _ordered(profiles: dict[str, AgentProfile], first: str) -> Iterable[str]:
    kinds = sorted(kind for kind in profiles if kind != FALLBACK_KIND)
    return ([first] if first in kinds else []) + [kind for kind in kinds if kind != first]
