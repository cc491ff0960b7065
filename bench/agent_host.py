"""Agent-state detection in the real host: what it costs across 20 busy tabs.

No reference exists: tmux has no agent states, and the tools that detect them (herdr,
agent-deck, ccmanager) publish no comparable figure. So this measures the host against itself:
the same 20 tabs with detection on and with the detector threads idled, and reports the host
process's CPU (every thread: readers feeding the emulator, notifiers, detectors), the
evaluations per second, and the cost of one evaluation as the host runs it (cached rows,
cursor, title and modes under the tab's lock, the foreground command, the rules, the events).

    python bench/agent_host.py [--tabs 20] [--seconds 10]

Loads (each tab a real program in a real PTY):
- claude: the Claude Code stand-in (tests/standins) mid-turn: spinner, counter and title redrawn
  ten times a second, as the real one does while it works.
- flood: a program printing 200 lines a second (a build, a test run).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "tests" / "standins" / "claude_standin.py"
FLOOD = ("import sys, time\nn = 0\nwhile True:\n    n += 1\n"
         "    sys.stdout.write(f'[{n:>8}] compiling module_{n % 97}.c ... ok\\n')\n"
         "    sys.stdout.flush()\n    time.sleep(0.005)\n")


def workspace(load: str, tabs: int) -> str:
    if load == "claude":
        command = [sys.executable, str(STANDIN), "--speed", "20"]  # a turn works for 60 s
    else:
        command = [sys.executable, "-c", FLOOD]
    return "".join(f'[[tab]]\nname = "t{i}"\ncommand = {json.dumps(command)}\nrole = "peer"\n' for i in range(tabs))


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(load: str, tabs: int, seconds: float, detect: bool) -> dict[str, float]:
    from tikitaka.actors.host import Host, HostOptions
    from tikitaka.actors.tabs import agent_watch
    from tikitaka.protocol.settings import Settings

    original = agent_watch.TabAgent.run
    if not detect:
        agent_watch.TabAgent.run = lambda self, stopping: stopping.wait()  # type: ignore[method-assign]
    home = Path(tempfile.mkdtemp(prefix="tka-"))
    for key, sub in (("TIKI_CONFIG_DIR", "c"), ("TIKI_STATE_DIR", "st")):
        os.environ[key] = str(home / sub)
    (home / "ws.toml").write_text(workspace(load, tabs))
    host = Host(HostOptions(workspace=home / "ws.toml", socket=home / "s", settings=Settings(),
                            coordinator=False, peers=False))
    try:
        host.start()
        if load == "claude":  # once each is at its prompt, start every turn
            for i in range(tabs):
                terminal = host.workspace.get(f"t{i}").get(timeout=10).terminal
                deadline = time.monotonic() + 30  # its input box shows (read from the screen: the
                while time.monotonic() < deadline and not any(  # detector may be the thing switched off)
                        "? for shortcuts" in row for row in terminal.visible_rows().get(timeout=10)):
                    time.sleep(0.1)
                terminal.paste("work").get(timeout=10).wait(5)
                terminal.write(b"\r").get(timeout=10).wait(5)
        time.sleep(3.0)
        agents = [host.workspace.get(f"t{i}").get(timeout=10).terminal.agent().get(timeout=10) for i in range(tabs)]
        evaluations, cost = sum(a.evaluations for a in agents), sum(a.cost for a in agents)
        cpu0, wall0 = cpu(), time.monotonic()
        time.sleep(seconds)
        cpu1, wall1 = cpu(), time.monotonic()
        evaluations, cost = sum(a.evaluations for a in agents) - evaluations, sum(a.cost for a in agents) - cost
        states = sorted({a.view.state for a in agents})
    finally:
        host.stop()
        agent_watch.TabAgent.run = original  # type: ignore[method-assign]
    wall = wall1 - wall0
    return {"host_cpu": (cpu1 - cpu0) / wall * 100, "evals_per_s": evaluations / wall,
            "eval_us": cost / evaluations * 1e6 if evaluations else 0.0, "detect_cpu": cost / wall * 100,
            "states": ", ".join(states)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tabs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print(f"{args.tabs} busy tabs in one host, {args.seconds:g} s each (CPU as % of one core)")
    for load in ("claude", "flood"):
        on = run(load, args.tabs, args.seconds, True)
        off = run(load, args.tabs, args.seconds, False)
        print(f"  {load:<7} host CPU {on['host_cpu']:5.1f}% with detection, {off['host_cpu']:5.1f}% without "
              f"(difference {on['host_cpu'] - off['host_cpu']:+.1f}%); {on['evals_per_s']:.0f} evaluations/s "
              f"({on['evals_per_s'] / args.tabs:.1f} per tab), {on['eval_us']:.0f} µs each = "
              f"{on['detect_cpu']:.1f}% in the detectors; states seen: {on['states']}")


if __name__ == "__main__":
    main()
