"""Peer wake-up: a coordinator run is in `wait` (30 s); a peer calls the real
`tiki bot-chat "DONE(...)"` CLI; time from that call returning to the `wait` returning with
the message (through the socket, the bot actor and the coordinator). Negative means the wait had
already returned before the CLI process finished exiting.

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    os.environ.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"))
    from agent_helpers import AgentHost
    from fake_ollama import Reply
    from tikitaka.actors.coordinator.events import ToolEnd, ToolStart

    agent = AgentHost(work, "[[tab]]\nname = \"Claude\"\ncommand = [\"cat\"]\nrole = \"peer\"\n", peers=True)
    woke: dict[str, float] = {}
    started: dict[str, float] = {}

    def stamp(event: object) -> None:
        if isinstance(event, ToolStart) and event.tool == "wait":
            started[event.run_id] = time.perf_counter()
        if isinstance(event, ToolEnd) and event.tool == "wait":
            woke[event.run_id] = time.perf_counter()

    agent.host.bus.subscribe(stamp)
    after_return, after_start = [], []
    try:
        for i in range(opts.n):
            agent.fake.script(Reply.action("wait", seconds=30), Reply.action("done", message="ok"))
            run_id = agent.coordinator.submit("wait for the peer").get()
            while run_id not in started:
                time.sleep(0.005)
            time.sleep(0.05)
            begin = time.perf_counter()
            subprocess.run([TIKI, "bot-chat", f"DONE(answer {i}, with a comma)", "--from", "Claude"],
                           env=os.environ, check=True, capture_output=True)
            returned = time.perf_counter()
            agent.collect(run_id)
            after_return.append(woke[run_id] - returned)
            after_start.append(woke[run_id] - begin)
        print(f"wait woke, measured from `tiki bot-chat` returning: median {statistics.median(after_return) * 1000:.1f} ms, "
              f"max {max(after_return) * 1000:.1f} ms  (target median <= 200 ms)")
        print(f"wait woke, measured from `tiki bot-chat` starting:  median {statistics.median(after_start) * 1000:.1f} ms, "
              f"max {max(after_start) * 1000:.1f} ms (includes the CLI's start-up)")
    finally:
        agent.close()


if __name__ == "__main__":
    main()
