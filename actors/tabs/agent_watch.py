"""A tab's agent state, kept current: the detector's thread, the state others read and wait on.

One `TabAgent` per terminal actor. Its thread (`tab:N.detector`, under the host's supervisor)
sleeps until the screen changed, a quiet-period rule comes due (`recheck_at`) or the echo
window after input closed (`look_again_at`), evaluates the tab's rules (terminals/agent_state)
at most ~10 times a second however busy the tab is, and publishes what changed:
`AgentStateChanged` for every new state, and `AgentNotice` when the user should hear of it
([notify] in config.toml): the tab entered `waiting`, it went from `working` to `idle` after
working a while, or its program printed a notification of its own. A `done` or a bell while no
UI shows the tab also leaves the tab `unseen` until a UI shows it (`seen`): the tab rows carry
it, so a UI that attaches later -- after a detach, SSH loss, a night away -- still learns which
tabs have news (the badges of the UI that heard a notice are that UI's own).
Every tab is watched, shown or not; the detector (and what it remembers) is replaced when the
tab restarts, so nothing from the old program leaks into the new one's state.

Callers never touch the detector: they read `view` (an immutable `AgentView`) or wait on it
with `wait_for`, which is how `terminal-wait --until`, delivery at idle and the verified send
learn of a state without polling the actor.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ...protocol.settings import NotifySettings
from ...terminals.agent_state import AgentStateDetector, ScreenFacts
from ...terminals.agent_state_rules import RuleBook, load_rulebook
from ..events import AgentNotice, AgentStateChanged, EventBus

DETECT_INTERVAL = 0.1  # at most ~10 evaluations a second per tab; changes meanwhile wait for the next
EXCERPT_ROWS = 14  # rows of a waiting screen handed to whoever must tell the user what it asks


@dataclass(frozen=True)
class AgentConfig:
    """What the host loads once for every tab: the rules, and when to notify."""

    rulebook: RuleBook
    notify: NotifySettings = field(default_factory=NotifySettings)

    @classmethod
    def default(cls) -> "AgentConfig":
        global _DEFAULT
        if _DEFAULT is None:
            _DEFAULT = cls(load_rulebook(strict=False))
        return _DEFAULT


_DEFAULT: AgentConfig | None = None


@dataclass(frozen=True)
class AgentView:
    """One evaluation's outcome, as callers see it (`tiki explain`, the tab list, delivery)."""

    kind: str = "shell"
    kind_name: str = "shell"
    identified_by: str = "default"  # command | title | screen | default
    state: str = "starting"
    since: float = field(default_factory=time.monotonic)  # monotonic
    rule: str = "not-evaluated"
    description: str = ""
    source: str = ""
    evidence: str = "nothing evaluated yet"
    command: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    region: str = ""
    evaluated_at: float | None = None
    recheck_at: float | None = None
    last_output_at: float | None = None
    changes: int = 0  # state changes since the tab's actor started

    def since_wall(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        return round(time.time() - (now - self.since), 3)

    def row(self) -> dict[str, Any]:
        """The `agent` entry of a tab's row in `terminal-list --json`."""
        return {"kind": self.kind, "state": self.state, "since": self.since_wall(),
                "reason": f"{self.rule}: {self.evidence}"}

    def excerpt(self) -> str:
        """The screen rows that show what the tab is waiting for: the matched rule's region,
        at most EXCERPT_ROWS rows that end with the last one with text on it."""
        rows = list(self.rows)
        while rows and not rows[-1].strip():
            rows.pop()
        region = self.region.split(":")
        if region[0] == "bottom" and len(region) == 2:
            rows = rows[-int(region[1]):]
        rows = rows[-EXCERPT_ROWS:]
        while rows and not rows[0].strip():
            rows.pop(0)
        return "\n".join(rows)


class TabAgent:
    """The detector of one tab, its thread body and the view it publishes."""

    def __init__(self, config: AgentConfig, bus: EventBus, tab: Callable[[], tuple[int, str]],
                 facts: Callable[[float], ScreenFacts], watched: Callable[[], bool] = lambda: False) -> None:
        self._config = config
        self._bus = bus
        self._tab = tab  # (id, name) now: a tab may be renamed
        self._facts = facts
        self._watched = watched  # does a UI show the tab now (then it heard the notice)
        self.unseen: str | None = None  # "done" | "bell": news no UI has shown yet
        self._wake = threading.Event()
        self._cv = threading.Condition()
        self._detector = AgentStateDetector(config.rulebook)
        self._generation = 0
        self._due: float | None = None  # evaluate at this time too (`look_again_at`)
        self._working_since: float | None = None
        self.view = AgentView()
        self.evaluations = 0
        self.cost = 0.0  # seconds spent evaluating, for bench/agent_host.py

    @property
    def rule_errors(self) -> list[str]:
        return list(self._config.rulebook.errors)

    def wake(self) -> None:
        """The screen changed (or the child exited): evaluate soon."""
        self._wake.set()

    def look_again_at(self, when: float) -> None:
        """Evaluate at `when` as well, the screen changed or not (the latest asked for wins)."""
        self._due = when if self._due is None else max(self._due, when)
        self._wake.set()  # (the thread waits for the time it knew of: it takes the new one)

    def seen(self) -> None:
        """A UI shows the tab: its news has been seen."""
        with self._cv:
            self.unseen = None

    def _mark(self, reason: str) -> None:
        """A notice (`done`, `bell`) nobody may have heard: kept until a UI shows the tab. A bell
        says less than a finished turn, so it never hides one."""
        if not self._watched():
            with self._cv:
                if reason == "done" or self.unseen is None:
                    self.unseen = reason

    def reset(self) -> None:
        """The tab's program starts again: a fresh detector, nothing remembered."""
        with self._cv:
            self._detector = AgentStateDetector(self._config.rulebook)
            self._generation += 1
            self._working_since = None
            previous = self.view
            if previous.state != "starting":  # nobody may read the old program's state as the new one's
                self.view = AgentView(changes=previous.changes + 1, evidence="restarted; nothing evaluated yet")
                self._cv.notify_all()
        if self.view is not previous:
            tab_id, name = self._tab()
            self._bus.publish(AgentStateChanged(tab_id, name, previous.kind, "starting", previous.state,
                                                self.view.since_wall(), self.view.rule, self.view.evidence))
        self._wake.set()

    def run(self, stopping: threading.Event) -> None:
        """The detector thread: evaluate after changes (coalesced) and when a rule comes due."""
        while not stopping.is_set():
            due = [when for when in (self.view.recheck_at, self._due) if when is not None]
            self._wake.wait(max(0.0, min(due) - time.monotonic()) if due else None)
            if stopping.is_set():
                return
            self._wake.clear()
            if self._due is not None and self._due <= time.monotonic():
                self._due = None
            self.evaluate()
            stopping.wait(DETECT_INTERVAL)

    def evaluate(self) -> AgentView:
        started = time.perf_counter()
        with self._cv:
            detector, generation = self._detector, self._generation
        facts = self._facts(time.monotonic())
        verdict = detector.evaluate(facts)
        rule, previous = detector.rule, self.view
        profile = self._config.rulebook.profiles.get(verdict.kind)
        changed = verdict.state != previous.state
        view = AgentView(
            verdict.kind, profile.name if profile else verdict.kind, detector.identified_by, verdict.state,
            detector.since if detector.since is not None else facts.now, verdict.rule,
            rule.description if rule else "", rule.source if rule else "", verdict.evidence, tuple(facts.command),
            tuple(facts.rows), str(rule.region) if rule and (rule.match or rule.not_match) else "",
            facts.now, detector.recheck_at, facts.last_output_at, previous.changes + changed)
        with self._cv:
            if generation != self._generation:
                return self.view  # the tab restarted meanwhile: this verdict is the old program's
            self.view = view
            self.evaluations += 1
            if changed:
                self._cv.notify_all()
        self.cost += time.perf_counter() - started
        self._publish(previous, view, facts)
        return view

    def _publish(self, previous: AgentView, view: AgentView, facts: ScreenFacts) -> None:
        tab_id, name = self._tab()
        notify = self._config.notify
        if view.state != previous.state:
            self._bus.publish(AgentStateChanged(tab_id, name, view.kind, view.state, previous.state,
                                                view.since_wall(facts.now), view.rule, view.evidence))
            if view.state == "working":
                self._working_since = view.since
            if view.state == "waiting" and notify.waiting:
                self._bus.publish(AgentNotice(tab_id, name, "waiting", view.excerpt() or view.evidence))
            elif view.state == "idle" and previous.state == "working" and notify.done and \
                    self._working_since is not None and view.since - self._working_since >= notify.done_after:
                self._mark("done")
                self._bus.publish(AgentNotice(tab_id, name, "done", view.evidence))
        if notify.program:
            for note in facts.notifications:
                if note.kind != "bel":
                    self._bus.publish(AgentNotice(tab_id, name, "program", note.text))
            if any(note.kind == "bel" for note in facts.notifications):  # (a run of them rings once)
                self._mark("bell")
                self._bus.publish(AgentNotice(tab_id, name, "bell", ""))

    def wait_for(self, wanted: Callable[[AgentView], bool], timeout: float,
                 gone: Callable[[], bool] | None = None) -> AgentView | None:
        """The view once `wanted(view)` holds; None after `timeout` s or when `gone()` says the
        one who asked has left (checked every 0.25 s)."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while not wanted(self.view):
                left = deadline - time.monotonic()
                if left <= 0 or (gone is not None and gone()):
                    return None
                self._cv.wait(min(left, 0.25))
            return self.view
