"""OSC 9 / 99 / 777 notifications and bells found in the output stream, however it is split,
and what the rules make of them (current only until the program prints again)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from tikitaka.terminals.agent_state import AgentStateDetector, ScreenFacts
from tikitaka.terminals.agent_state_rules import load_rulebook
from tikitaka.terminals.agent_state_signals import NotificationScanner

SCREENS = Path(__file__).parent / "screens"


def scan_split(text: str, size: int) -> list[tuple[str, str]]:
    scanner = NotificationScanner()
    found = []
    for i in range(0, len(text), size):
        found += scanner.scan(text[i:i + size], float(i))
    return [(n.kind, n.text) for n in found]


STREAM = (
    "plain output\r\n"
    "\x1b]0;✳ Claude Code\x07"  # a title ended by BEL: not a bell
    "\x1b]9;Claude needs your permission\x07"
    "ding\x07"
    "\x1b]777;notify;Codex;Turn complete\x1b\\"
    "\x1b]99;i=1:d=0:e=1;" + base64.b64encode("Build done ✓".encode()).decode() + "\x1b\\"
    "\x1b]9;4;1;50\x07"  # ConEmu / Windows Terminal progress, not a message
    "\x1bPq#0;2;0;0;0\x07sixel\x1b\\"  # a BEL inside a DCS string is data
    "\x1b]777;preexec\x07"
    "end\x07"
)
EXPECTED = [("osc9", "Claude needs your permission"), ("bel", ""), ("osc777", "Codex: Turn complete"),
            ("osc99", "Build done ✓"), ("bel", "")]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64, len(STREAM)])
def test_notifications_and_bells_are_found_however_the_stream_is_split(size: int):
    assert scan_split(STREAM, size) == EXPECTED


def test_plain_chunks_cost_four_substring_tests_and_find_nothing():
    scanner = NotificationScanner()
    assert scanner.scan("x" * 10_000 + "\x1b[31mred\x1b[0m", 0.0) == [] and scanner._tail == ""
    assert scanner.bells == 0


def test_an_endless_unterminated_string_is_dropped_not_kept_forever():
    scanner = NotificationScanner()
    scanner.scan("\x1b]9;" + "x" * 10_000, 0.0)
    assert scanner._tail == "" and scanner.scan("\x07", 1.0)[0].kind == "bel"


def test_the_real_claude_session_rings_no_bell_and_asks_permission_once():
    """Claude Code 2.1.197 ends each of its titles with BEL and, for iTerm2, prints OSC 9."""
    lines = gzip.open(SCREENS / "claude_cycle_80x24.rec.gz", "rt", encoding="utf-8").read().splitlines()
    scanner = NotificationScanner()
    found = []
    for delay, text in (json.loads(line) for line in lines[1:]):
        found += scanner.scan(text.encode("latin-1").decode("utf-8", "replace"), delay)
    assert [(n.kind, n.text) for n in found] == [("osc9", "Claude needs your permission")]


def facts(now: float, last_output_at: float, notes=()):
    return ScreenFacts(["something unrecognisable"], (0, 5, True), "", now=now, last_output_at=last_output_at,
                       started_at=0.0, notifications=notes, command=["claude"])


def test_a_notification_counts_until_the_program_prints_again():
    detector = AgentStateDetector(load_rulebook(user=Path("/nonexistent")))
    notes = NotificationScanner().scan("\x1b]9;Claude needs your permission\x07", 50.0)
    first = detector.evaluate(facts(50.0, 50.0, notes))
    assert first[:2] == ("waiting", "permission-notification") and "needs your permission" in first.evidence
    assert detector.evaluate(facts(80.0, 50.0))[:2] == ("waiting", "permission-notification")  # still quiet
    # the user answered: the program redrew, so the notification is history
    assert detector.evaluate(facts(81.0, 81.0)).state == "working"
    assert detector.evaluate(facts(90.0, 81.0)).state == "unknown"


def test_aider_rings_the_bell_when_it_is_ready_again():
    detector = AgentStateDetector(load_rulebook(user=Path("/nonexistent")))
    bell = NotificationScanner().scan("\x07", 10.0)
    screen = ScreenFacts(["Tokens: 2.4k sent", "? "], (1, 2, True), now=10.0, last_output_at=10.0,
                         started_at=0.0, notifications=bell, command=["aider"])
    assert detector.evaluate(screen)[:2] == ("idle", "bell")
