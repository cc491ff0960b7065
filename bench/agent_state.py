"""Agent-state detection cost: per screen update, per CLI's rules, and across 20 busy tabs.

No reference exists for this one: tmux has no agent states, and the tools that detect them
(herdr, agent-deck, ccmanager) publish no comparable figure. So it prints absolute costs
only: microseconds per screen update, and the share of one core that 20 tabs each redrawn
60 times a second take.

    python bench/agent_state.py [--seconds 3]

Per CLI, the real recorded sessions (tests/screens/*.rec.gz: Claude Code, Codex, aider) are
replayed into the real emulator and every chunk is followed by what the host's detector does
(actors/tabs/terminal_agent): the facts read from the screen (the rows cached per changed row,
cursor, title, modes, the notifications its scanner found during the feed) and the evaluation.
The notification scan runs inside the feed now; `scan` times it apart on the same chunks. Gemini and the shell rules are timed on their
captured screens (tests/screens/*.txt). "unknown screen" is a 120x40 screen of text no rule
knows: every rule of the file is tried (most stop at their substring pre-check) before the
quiet-period fallback answers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_agent_state import CAPTURES, load_capture  # noqa: E402

from tikitaka.terminals.agent_state import AgentStateDetector, ScreenFacts, screen_facts  # noqa: E402
from tikitaka.terminals.agent_state_rules import load_rulebook  # noqa: E402
from tikitaka.terminals.agent_state_signals import NotificationScanner  # noqa: E402
from tikitaka.terminals.screen import Screen  # noqa: E402

SCREENS = ROOT / "tests" / "screens"
RULES = load_rulebook(user=Path("/nonexistent"))


def recording(name: str) -> tuple[int, int, list[bytes]]:
    lines = gzip.open(SCREENS / f"{name}.rec.gz", "rt", encoding="utf-8").read().splitlines()
    header = json.loads(lines[0])["recorded"]
    size = {k: int(header.split(f'{k}="')[1].split('"')[0]) for k in ("COLUMNS", "LINES")}
    return size["COLUMNS"], size["LINES"], [json.loads(line)[1].encode("latin-1") for line in lines[1:]]


def host_facts(screen: Screen, now: float, command: list[str]) -> ScreenFacts:
    """What the host's detector reads (actors/tabs/terminal_agent._agent_facts)."""
    return ScreenFacts(screen.visible_rows(), screen.cursor, screen.title, screen.alt_screen,
                       screen.agent.take_notifications(), now, now, 0.0, False, None, command)


def per_update(name: str, command: list[str]) -> dict[str, float]:
    """Replay a recording; time scan, facts and evaluate after every chunk (µs, medians)."""
    cols, rows, chunks = recording(name)
    samples: dict[str, list[float]] = {"scan": [], "facts": [], "evaluate": []}
    for _ in range(5):
        screen, scanner, detector = Screen(cols, rows), NotificationScanner(), AgentStateDetector(RULES)
        now = 0.0
        for data in chunks:
            now += 0.05
            screen.feed(data)
            t0 = time.perf_counter()
            scanner.scan(data.decode("utf-8", "replace"), now)  # what the feed's hook did
            t1 = time.perf_counter()
            facts = host_facts(screen, now, command)
            t2 = time.perf_counter()
            detector.evaluate(facts)
            t3 = time.perf_counter()
            samples["scan"].append(t1 - t0)
            samples["facts"].append(t2 - t1)
            samples["evaluate"].append(t3 - t2)
    return {key: statistics.median(values) * 1e6 for key, values in samples.items()}


def on_captures(kind: str, command: list[str]) -> float:
    detector = AgentStateDetector(RULES)
    facts = []
    for name in (n for n in CAPTURES if n.startswith(kind)):
        screen, _ = load_capture(name)
        facts.append(screen_facts(screen, now=100.0, last_output_at=99.9, started_at=0.0, command=command))
    return timed(lambda: [detector.evaluate(f) for f in facts]) / len(facts)


def unknown_screen(command: list[str]) -> float:
    rng = random.Random(1)
    screen = Screen(120, 40)
    text = "\r\n".join("".join(rng.choice(string.ascii_letters + " ") for _ in range(119)) for _ in range(40))
    screen.feed(text.encode())
    facts = screen_facts(screen, now=100.0, last_output_at=10.0, started_at=0.0, command=command)
    detector = AgentStateDetector(RULES)
    return timed(lambda: detector.evaluate(facts))


def timed(work, repeat: int = 2000) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat // 5):
            work()
        best = min(best, (time.perf_counter() - start) / (repeat // 5))
    return best * 1e6


def busy_tabs(tabs: int, hz: int, seconds: float) -> tuple[float, float, float]:
    """`tabs` Claude tabs each fed a working-spinner frame `hz` times a second (as fast as it
    goes, counted in simulated seconds): the detection's share of one core, and the emulator's."""
    cols, rows, chunks = recording("claude_cycle_80x24")
    screens = [Screen(120, 40) for _ in range(tabs)]
    for screen in screens:
        for data in chunks[:40]:  # up to the working spinner
            screen.feed(data)
    frames = [data for data in chunks if "…".encode() in data and b"\x1b]0;" in data] or chunks[40:60]
    detectors = [AgentStateDetector(RULES) for _ in range(tabs)]
    updates = int(tabs * hz * seconds)
    facts_time = evaluate_time = feed = 0.0
    for i in range(updates):
        tab, data, now = i % tabs, frames[i % len(frames)], i / (tabs * hz)
        t0 = time.perf_counter()
        screens[tab].feed(data)
        t1 = time.perf_counter()
        facts = host_facts(screens[tab], now, ["claude"])
        t2 = time.perf_counter()
        detectors[tab].evaluate(facts)
        t3 = time.perf_counter()
        feed += t1 - t0
        facts_time += t2 - t1
        evaluate_time += t3 - t2
    return facts_time / seconds * 100, evaluate_time / seconds * 100, feed / seconds * 100


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="simulated seconds of 20 busy tabs")
    args = parser.parse_args()
    print("per screen update (median µs): notification scan + facts from the screen + rule evaluation")
    for kind, name, command in (("claude", "claude_cycle_80x24", ["claude"]), ("codex", "codex_cycle_120x40", ["codex"]),
                                ("aider", "aider_cycle_120x40", ["aider"])):
        cost = per_update(name, command)
        total = sum(cost.values())
        print(f"  {kind:<8} {name:<22} scan {cost['scan']:5.1f}  facts {cost['facts']:5.1f}  "
              f"evaluate {cost['evaluate']:5.1f}  = {total:6.1f} µs;  unknown screen {unknown_screen(command):6.1f} µs")
    for kind, command in (("gemini", ["gemini"]), ("shell", ["bash"])):
        print(f"  {kind:<8} {'captured screens':<22} evaluate {on_captures(kind, command):5.1f} µs;"
              f"  unknown screen {unknown_screen(command):6.1f} µs")
    print(f"  {'signature':<8} {'(shell tab, 5 kinds)':<22} unknown screen {unknown_screen(['bash']):6.1f} µs "
          "(a command that names no agent: every signature is tried first)")
    facts, rules, feed = busy_tabs(20, 60, args.seconds)
    print(f"20 tabs x 60 updates/s: detection {facts + rules:.1f}% of one core = facts {facts:.1f}% "
          f"+ rules {rules:.1f}% (the emulator's feed of the same frames, scan included: {feed:.1f}%)")
    print(f"  the same 20 tabs evaluated at most 10 times a second each (coalesced): {(facts + rules) / 6:.1f}% "
          "(computed from the figure above)")


if __name__ == "__main__":
    main()
