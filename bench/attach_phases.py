"""Where the attached run's time goes (issue 13), phase by phase, beside the same phases in a
plain tmux pane and the PTY's own floor.

The setup is attach_speed.py's: the real `tiki` UI in a 140x45 outer tmux, attached to a
background host whose tab is a warm bash, and a plain pane of that tmux with the same bash.
Each side is typed `t0=$EPOCHREALTIME; seq 1 600000; t1=$EPOCHREALTIME; echo END...` and
polled for END on the outer screen every POLL s. bash's stamps split each run in three:

- typing: from `send-keys` until the shell starts `seq` (the keys' way to the tab's shell),
- seq: `seq` itself, writing into the tab's PTY (the reader's side sets its pace),
- tail: from `seq`'s end until END is on the outer screen (for tikitaka: the host's last
  read and frame, the UI, the outer terminal; for the pane: tmux's read and its grid).

The floor, interleaved: the same `seq` into a bare PTY whose reader (a Python thread) only
reads -- how long `seq` takes when nothing else is done with its output, and how much of that
is `seq`'s own system time (the kernel's line discipline, per write).

    python bench/attach_phases.py [--runs 8] [--poll 5]
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import resource
import statistics
import subprocess
import threading
import time

from attach_speed import POLL, POLL_HELP, OuterUi
from common import TmuxControl, wait_for

COMMAND = "t0=$EPOCHREALTIME; seq 1 600000; t1=$EPOCHREALTIME; echo END{n}-$((1+1)) $t0 $t1"


def phases(control: TmuxControl, target: str, n: int, poll: float = POLL) -> tuple[float, float, float]:
    """(typing, seq, tail) in ms for one run in `target`."""
    marker = re.compile(rf"END{n}-2 ([\d.]+) ([\d.]+)")
    start = time.time()
    control.command(f"send-keys -t {target} -l '{COMMAND.format(n=n)}'")
    control.command(f"send-keys -t {target} Enter")
    found: list[re.Match[str]] = []

    def shown() -> bool:
        match = marker.search(control.command(f"capture-pane -p -t {target}"))
        if match:
            found.append(match)
        return bool(match)

    wait_for(shown, 600, poll)
    seen = time.time()
    t0, t1 = float(found[0].group(1)), float(found[0].group(2))
    control.command(f"send-keys -t {target} -l clear")
    control.command(f"send-keys -t {target} Enter")
    time.sleep(1)
    return (t0 - start) * 1000, (t1 - t0) * 1000, (seen - t1) * 1000


def floor() -> tuple[float, float]:
    """(wall ms, seq's system ms) for `seq 1 600000` into a bare PTY read by a do-nothing thread."""
    master, slave = pty.openpty()

    def drain() -> None:
        while True:
            try:
                if not os.read(master, 65536):
                    return
            except OSError:
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime
    start = time.perf_counter()
    subprocess.run(["seq", "1", "600000"], stdout=slave, check=True)
    wall = time.perf_counter() - start
    system = resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime - before
    os.close(slave)
    reader.join(5)
    os.close(master)
    return wall * 1000, system * 1000


def line(name: str, values: list[float]) -> str:
    return f"{name:<6} median {statistics.median(values):6.1f}  min {min(values):6.1f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--poll", type=float, default=POLL * 1000, metavar="MS", help=POLL_HELP)
    opts = parser.parse_args()
    poll = opts.poll / 1000
    setup = OuterUi("tkphases")
    control, ui = setup.control, setup.ui
    try:
        pane = control.command("display-message -p -t b:0 '#{pane_id}'").strip()
        control.command(f"send-keys -t {pane} -l \"PS1='$ '\"")
        control.command(f"send-keys -t {pane} Enter")
        setup.start_tiki()
        runs: dict[str, list[tuple[float, float, float]]] = {"tiki": [], "tmux": []}
        floors: list[tuple[float, float]] = []
        for n in range(opts.runs):
            runs["tiki"].append(phases(control, ui, n, poll))
            runs["tmux"].append(phases(control, pane, n, poll))
            floors.append(floor())
        print(f"seq 1 600000 in the watched tab through the outer {140}x{45} tmux vs a plain pane, {opts.runs} "
              f"runs each, interleaved, polled every {opts.poll:g} ms; ms")
        for side, rows in runs.items():
            print(f"  {side}:  " + ";  ".join(line(name, [r[i] for r in rows])
                                             for i, name in enumerate(("typing", "seq", "tail"))))
        print(f"  floor: seq into a bare PTY, wall {line('', [f[0] for f in floors])};  seq's own system time "
              f"{line('', [f[1] for f in floors])}")
        extra = [t[0] + t[2] - (p[0] + p[2]) for t, p in zip(runs["tiki"], runs["tmux"])]
        print(f"  tikitaka's typing + tail beyond the pane's, per pair: median {statistics.median(extra):.1f} ms; "
              f"its seq phase against the pane's: median ratio "
              f"{statistics.median(p[1] / t[1] for t, p in zip(runs['tiki'], runs['tmux'])):.2f} (pane / tiki)")
    finally:
        setup.close()


if __name__ == "__main__":
    main()
