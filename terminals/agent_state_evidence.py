"""What a verdict says it matched, for `tiki explain` and the tab list's `reason`: the rows a
rule's patterns hit, the title, the signal, and each condition that held, in words."""

from __future__ import annotations

import math
import re
from typing import Any

from .agent_state_model import Rule
from .agent_state_signals import Notification

EVIDENCE_MAX = 160  # characters of one quoted piece (a row, the title, a command)


def line_of(hit: re.Match[str], text: str) -> str:
    """The whole row the match starts on: more telling in `tiki explain` than the match alone."""
    start = text.rfind("\n", 0, hit.start()) + 1
    end = text.find("\n", hit.start())
    return text[start: end if end >= 0 else len(text)]


def evidence(rule: Rule, view: Any, rows: list[str], title: bool, signal: Notification | None) -> str:
    """What `rule`, which held, saw: `view` is the detector's look at the screen (agent_state's
    `_View`: its facts, the quiet time, whether a screen was recognised before); `rows` the rows
    its patterns hit, `title` whether its title pattern did, `signal` the notification it took."""
    facts, parts = view.facts, []
    if rows:
        parts.append(f"{rule.region} shows " + " … ".join(repr(clip(row.strip())) for row in rows))
    if title:
        parts.append(f"title {clip(facts.title.strip())!r}")
    if signal is not None:
        parts.append("a bell" if signal.kind == "bel" else f"{signal.kind} notification {clip(signal.text)!r}")
    if rule.exited:
        parts.append(f"exited with code {facts.exit_code}" if facts.exit_code is not None else "exited")
    if rule.alt_screen is not None:
        parts.append("alternate screen" if facts.alt_screen else "main screen")
    if rule.cursor is not None:
        parts.append("cursor visible" if facts.cursor[2] else "cursor hidden")
    if rule.blank:
        parts.append("blank screen")
    if rule.quiet_for is not None or rule.output_within is not None:
        parts.append("no output yet" if math.isinf(view.quiet) else f"last output {view.quiet:.1f} s ago")
    if rule.started_within is not None and facts.started_at is not None:
        parts.append(f"started {facts.now - facts.started_at:.1f} s ago")
    if rule.recognised is not None:
        parts.append("a known screen was seen before" if view.recognised else "no known screen seen yet")
    if rule.reading is not None:
        parts.append("it waits in a read of the terminal" if rule.reading else "it is not reading the terminal")
    if rule.listening is not None:
        parts.append("a thread of it waits for the terminal's input" if rule.listening
                     else "no thread of it waits for the terminal's input")
    if rule.job is not None:
        parts.append(f"{clip(' '.join(facts.command))!r} runs in front" if rule.job
                     else "the tab's own program holds its terminal")
    return "; ".join(parts) or "always"


def clip(text: str) -> str:
    return text if len(text) <= EVIDENCE_MAX else text[: EVIDENCE_MAX - 1] + "…"
