"""Peer wake-up, the way a real peer does it: a coordinator run is in `wait` (30 s); inside the
peer's own tab, a shell runs the real `tiki bot-chat "DONE(...)"` (so the host verifies the
caller by its terminal, the path a peer AI takes), and we time from the moment that shell
starts the CLI (bash's $EPOCHREALTIME, written just before) until the coordinator's `wait`
returns with the message (through the socket, the bot actor and the coordinator).

There is no reference program that does this; for scale the run also times a bare
`python -c pass` and `tiki --version`, which bound what any Python CLI can do here.

    python bench/peer_wake.py [--n 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from common import TIKI  # noqa: E402

PEER = '[[tab]]\nname = "Claude"\ncommand = ["bash", "--norc", "--noprofile"]\nrole = "peer"\n'


def start_up(argv: list[str], n: int = 10) -> float:
    times = []
    for _ in range(n):
        begin = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    os.environ.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"))
    from agent_helpers import AgentHost
    from fake_ollama import Reply

    from tikitaka.actors.coordinator.events import ToolEnd, ToolStart

    agent = AgentHost(work, PEER, peers=True)
    woke: dict[str, tuple[float, list]] = {}
    started: dict[str, float] = {}

    def stamp(event: object) -> None:
        if isinstance(event, ToolStart) and event.tool == "wait":
            started[event.run_id] = time.time()
        if isinstance(event, ToolEnd) and event.tool == "wait":
            woke[event.run_id] = (time.time(), event.result.get("peer_messages", []))

    agent.host.bus.subscribe(stamp)
    peer = agent.host.workspace.get("Claude").get(timeout=10).terminal
    latencies, verified = [], 0
    try:
        for i in range(opts.n):
            agent.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="ok"))
            run_id = agent.coordinator.submit("wait for the peer").get()
            while run_id not in started:
                time.sleep(0.005)
            mark = work / f"start{i}"
            line = f'echo $EPOCHREALTIME > {mark}; tiki bot-chat "DONE(answer {i}, with a comma)"\r'
            peer.write(line.encode()).get(timeout=10)
            agent.collect(run_id)
            when, messages = woke[run_id]
            latencies.append(when - float(mark.read_text()))
            verified += bool(messages and messages[0]["verified"] and messages[0]["text"] == f"answer {i}, with a comma")
        print(f"wait woke, from the peer's shell starting `tiki bot-chat`: median "
              f"{statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms "
              f"(n={len(latencies)}; {verified} verified by the host, commas intact)")
        print(f"for scale: `python -c pass` {start_up([sys.executable, '-c', 'pass']) * 1000:.1f} ms, "
              f"`tiki --version` {start_up([TIKI, '--version']) * 1000:.1f} ms (median of 10)")
    finally:
        agent.close()


if __name__ == "__main__":
    main()
