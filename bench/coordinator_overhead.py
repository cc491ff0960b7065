"""Coordinator overhead per turn outside the model: a coordinator run against a fake Ollama that
answers at once. For each turn after the first: the time from the fake having sent the
previous reply completely to the next request arriving, minus the tool's own run time —
what the coordinator, the client and the transport cost per turn.

    python bench/coordinator_overhead.py [--turns 11] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from common import summary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=11)
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    os.environ.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"))
    from agent_helpers import AgentHost
    from fake_ollama import Reply

    from tikitaka.actors.coordinator.events import ToolEnd

    agent = AgentHost(work, '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc"]\n', max_turns=opts.turns + 1)
    fake = agent.fake
    overheads = []
    try:
        for _ in range(opts.runs):
            fake.arrived.clear()
            fake.finished.clear()
            # distinct reads so the repeat guard never blocks
            fake.script(*[Reply.action("read_terminal", tab="sh", lines=i + 1) for i in range(opts.turns)],
                        Reply.action("done", message="ok"))
            final, events = agent.run("bench")
            tools = [e.duration for e in events if isinstance(e, ToolEnd)]
            gaps = [nxt - done for done, nxt in zip(fake.finished, fake.arrived[1:])]
            overheads += [gap - tool for gap, tool in zip(gaps, tools)]
        print(f"coordinator overhead per turn (outside model and tool): {summary(overheads)}  target median <= 5 ms")
        print(f"messages in the session at the end: {len(agent.coordinator.messages().get())}")
    finally:
        agent.close()


if __name__ == "__main__":
    main()
