"""Agent states from the real programs' screens, through the real emulator and the bundled rules.

`tests/screens/*.txt` are panes captured from Claude Code 2.1.197, Codex 0.171.0, Gemini CLI
0.61.0, aider 0.86.2 and bash/top (see tests/screens/capture.sh and assets/agents/README.md);
each names the state the rules must give. `*.rec.gz` are whole sessions recorded with
`script -T` (bytes and timing): they are replayed chunk by chunk, as the PTY delivered them.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from tikitaka.terminals.agent_state import AgentStateDetector, ScreenFacts, screen_facts
from tikitaka.terminals.agent_state_rules import load_rulebook
from tikitaka.terminals.agent_state_signals import NotificationScanner
from tikitaka.terminals.screen import Screen

SCREENS = Path(__file__).parent / "screens"
CAPTURES = sorted(p.stem for p in SCREENS.glob("*.txt"))
COMMANDS = {"claude": ["claude"], "codex": ["node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"],
            "gemini": ["gemini"], "aider": ["aider"], "shell": ["bash"]}
NOW = 1000.0


@pytest.fixture(scope="module")
def rulebook():
    return load_rulebook(user=Path("/nonexistent"))


def load_capture(name: str) -> tuple[Screen, dict[str, str]]:
    """The captured pane drawn into a real Screen: rows with their colours, title, cursor, modes."""
    head, body = (SCREENS / f"{name}.txt").read_text(encoding="utf-8").split("---\n", 1)
    meta = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "") for line in head.splitlines())
    cols, rows = map(int, meta["size"].split("x"))
    screen = Screen(cols, rows)
    out = ["\x1b[?1049h" if meta["alt_screen"] == "yes" else "", "\x1b[H\x1b[2J"]
    out += [f"\x1b[{i + 1};1H{row}\x1b[0m" for i, row in enumerate(body.rstrip("\n").split("\n"))]
    row, col, visible = meta["cursor"].split()
    out += [f"\x1b]2;{meta['title']}\x07", f"\x1b[{int(row) + 1};{int(col) + 1}H", "" if visible == "visible" else "\x1b[?25l"]
    screen.feed("".join(out).encode())
    return screen, meta


def verdict_for(rulebook, name: str, quiet: float, command: list[str] | None = None):
    screen, meta = load_capture(name)
    kind = name.split("_")[0]
    facts = screen_facts(screen, now=NOW, last_output_at=NOW - quiet, started_at=NOW - 60,
                         exited=meta.get("exited") == "yes", exit_code=0,
                         command=COMMANDS[kind] if command is None else command)
    return AgentStateDetector(rulebook).evaluate(facts), meta


def test_the_captures_are_the_real_programs_and_cover_every_agent_state():
    expected = {load_capture(name)[1]["expect"] for name in CAPTURES}
    assert {"working", "waiting", "idle", "exited", "unknown"} <= expected
    assert {name.split("_")[0] for name in CAPTURES} == set(COMMANDS)


@pytest.mark.parametrize("quiet", [0.1, 30.0], ids=["just-drawn", "quiet-30s"])
@pytest.mark.parametrize("name", CAPTURES)
def test_each_real_screen_gives_its_state_whether_it_just_drew_or_not(rulebook, name, quiet):
    verdict, meta = verdict_for(rulebook, name, quiet)
    assert verdict.state == meta["expect"], verdict.describe()
    assert verdict.kind == name.split("_")[0]


@pytest.mark.parametrize("name", [n for n in CAPTURES if not n.startswith(("shell", "claude_offline"))])
def test_an_agent_started_from_a_shell_is_recognised_by_its_screen(rulebook, name):
    verdict, meta = verdict_for(rulebook, name, 0.1, command=["bash"])
    assert (verdict.kind, verdict.state) == (name.split("_")[0], meta["expect"]), verdict.describe()


@pytest.mark.parametrize("name, rule, shown", [
    ("claude_permission_80x24", "choice-menu", "❯ 1. Yes"),
    ("claude_working_counter_120x40", "interrupt-hint", "esc to interrupt"),
    ("codex_approval_120x40", "approval-title", "Action Required"),
    ("codex_signin_120x40", "sign-in", "Sign in with ChatGPT"),
    ("gemini_confirm_120x40", "confirmation", "Allow execution of"),
    ("aider_confirm_120x40", "question", "(Y)es/(N)o"),
    ("shell_top_80x24", "hidden-cursor", "cursor hidden"),
])
def test_the_verdict_names_the_rule_and_what_it_matched(rulebook, name, rule, shown):
    verdict, _ = verdict_for(rulebook, name, 0.1)
    assert verdict.rule == rule and shown in verdict.evidence, verdict.describe()


def test_claude_spinner_line_alone_is_working_and_the_finished_line_is_not(rulebook):
    profile = rulebook.profiles["claude"]
    rows = ["❯ do it", "", "✢ Canoodling… (14s · ↓ 7 tokens)", "", "─" * 20, "❯ ", "─" * 20]
    detector = AgentStateDetector(rulebook)
    facts = ScreenFacts(rows, (5, 2, False), "", now=NOW, last_output_at=NOW - 30, command=["claude"])
    assert detector.evaluate(facts)[:2] == ("working", "spinner-line")
    rows[2] = "✻ Crunched for 1m 1s"
    facts = ScreenFacts(rows, (5, 2, False), "", now=NOW, last_output_at=NOW - 30, command=["claude"])
    assert detector.evaluate(facts)[:2] == ("idle", "input-box")
    assert [r.name for r in profile.rules][0] == "exited"


def replay(name: str, rulebook, command: list[str]) -> list[tuple[str, str]]:
    """Feed a recorded session chunk by chunk at its recorded times; the states it went through."""
    lines = gzip.open(SCREENS / f"{name}.rec.gz", "rt", encoding="utf-8").read().splitlines()
    header = json.loads(lines[0])["recorded"]
    cols, rows = (int(re.search(f'{key}="([0-9]+)"', header).group(1)) for key in ("COLUMNS", "LINES"))
    screen, scanner, detector = Screen(cols, rows), NotificationScanner(), AgentStateDetector(rulebook)
    now = start = 0.0
    states: list[tuple[str, str]] = []
    chunks = [json.loads(line) for line in lines[1:]]
    for delay, text in chunks:
        # A quiet period may end before the next chunk: evaluate at recheck_at as the caller will.
        while detector.recheck_at is not None and detector.recheck_at < now + delay:
            at = detector.recheck_at
            note(states, detector.evaluate(screen_facts(screen, now=at, last_output_at=now, started_at=start, command=command)))
        now += delay
        data = text.encode("latin-1")
        screen.feed(data)
        found = scanner.scan(data.decode("utf-8", "replace"), now)
        note(states, detector.evaluate(screen_facts(screen, now=now, last_output_at=now, started_at=start,
                                                    notifications=found, command=command)))
    note(states, detector.evaluate(screen_facts(screen, now=now + 5, last_output_at=now, started_at=start,
                                                exited=True, exit_code=0, command=command)))
    return states


def note(states: list[tuple[str, str]], verdict) -> None:
    if not states or states[-1][0] != verdict.state:
        states.append((verdict.state, verdict.rule))


def assert_went_through(states: list[tuple[str, str]], expected: list[str]) -> None:
    """The session's states in order; between the last idle and `exited` only the program's own
    goodbye (it prints as it restores the terminal) may show, as working or unknown."""
    seen = [state for state, _ in states]
    assert seen[: len(expected)] == expected and seen[-1] == "exited", states
    assert set(seen[len(expected): -1]) <= {"working", "unknown"}, states


def test_a_recorded_claude_session_goes_idle_working_waiting_working_idle(rulebook):
    states = replay("claude_cycle_80x24", rulebook, ["claude"])
    assert_went_through(states, ["starting", "idle", "working", "waiting", "working", "idle"])
    assert ("waiting", "choice-menu") in states


def test_a_recorded_codex_session_with_an_approval(rulebook):
    states = replay("codex_cycle_120x40", rulebook, ["codex"])
    assert_went_through(states, ["starting", "idle", "working", "waiting", "working", "idle"])
    assert ("waiting", "approval-title") in states


def test_a_recorded_aider_session_with_a_question(rulebook):
    states = replay("aider_cycle_120x40", rulebook, ["aider"])
    assert_went_through(states, ["starting", "idle", "working", "waiting", "working", "idle"])
    assert ("waiting", "question") in states


def test_a_title_left_behind_does_not_make_a_shell_an_agent(rulebook):
    """bash does not reset the title Claude set; under a wrapper the title is the agent's own."""
    rows = ["tiki$ claude", "Resume this session with:", "claude --resume 1234", "tiki$"]
    facts = dict(rows=rows, cursor=(3, 6, True), title="✳ Claude Code", now=NOW, last_output_at=NOW - 5, started_at=0.0)
    shell = AgentStateDetector(rulebook).evaluate(ScreenFacts(command=["bash"], **facts))
    assert (shell.kind, shell.state, shell.rule) == ("shell", "idle", "prompt")
    wrapped = AgentStateDetector(rulebook).evaluate(ScreenFacts(command=["node", "cli.js"], **facts))
    assert wrapped.kind == "claude"


def test_codex_is_working_by_its_own_status_line_not_by_a_message_that_quotes_another_agents(rulebook):
    """Codex's status line is "• Working (7s • esc to interrupt)". A message in its transcript
    that quotes another agent's spinner -- a coordinator that pastes Claude's screen into Codex,
    a toy model in the field run did it over and over -- made an idle Codex `working` while the
    quote stayed in its bottom rows, and every send to it waited for it to be idle."""
    detector = AgentStateDetector(rulebook)
    rows = ["› what does Claude show? ✻ Pondering… (3s · esc to interrupt)", "", "• It shows a spinner.", "",
            "› Ask Codex to do anything", "", "  gpt-5-codex default · /tmp/x", "  ← for agents · ? for shortcuts"]
    facts = ScreenFacts(rows, (4, 2, True), "", now=NOW, last_output_at=NOW - 30, command=["codex"])
    assert detector.evaluate(facts)[:2] == ("idle", "composer")
    rows[2:4] = ["• Working (7s • esc to interrupt)", ""]
    facts = ScreenFacts(rows, (4, 2, True), "", now=NOW, last_output_at=NOW - 30, command=["codex"])
    assert detector.evaluate(facts)[:2] == ("working", "interrupt-hint")


def test_claude_is_working_by_its_own_status_row_not_by_a_message_that_quotes_it(rulebook):
    """The same for Claude Code: its row under the input box starts "esc to interrupt · ";
    a message above the box quoting another agent's status line does not make it work."""
    detector = AgentStateDetector(rulebook)
    rows = ["> what does Codex show? • Working (7s • esc to interrupt)", "", "● It shows that it works.", "",
            "─" * 20, "❯ ", "─" * 20, "  ? for shortcuts"]
    facts = ScreenFacts(rows, (5, 2, True), "", now=NOW, last_output_at=NOW - 30, command=["claude"])
    assert detector.evaluate(facts)[:2] == ("idle", "input-box")
    rows[7] = "  esc to interrupt · ← for agents"
    facts = ScreenFacts(rows, (5, 2, True), "", now=NOW, last_output_at=NOW - 30, command=["claude"])
    assert detector.evaluate(facts)[:2] == ("working", "interrupt-hint")
