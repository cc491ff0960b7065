"""Where the attached run's last milliseconds go (issue 13): the same `seq 1 600000; echo END`
as attach_speed.py in the real `tiki` UI inside an outer tmux, timed twice -- until the host's
screen has END (a `terminal.read` over a persistent UI session every 3 ms) and until the
OUTER screen shows it (`capture-pane` every 3 ms). The difference is the UI path's tail: the
host's frame pacing, the UI's repaint and the outer terminal. No reference: a tmux pane has
no such path (its screen is the one capture-pane reads).

    python bench/attach_tail.py [--runs 5]
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

from attach_speed import SEQ, OuterUi
from common import TmuxControl, wait_for

from tikitaka.app.ui_client import UiClient
from tikitaka.protocol import ops

POLL = 0.003


class HostReader:
    """Reads the tab's last lines over one persistent UI session (as throughput.py polls)."""

    def __init__(self, socket: Path) -> None:
        self.client = UiClient(socket, client="tail")
        self.client.connect(80, 24)
        self.client.start(lambda event: None, lambda reason: None)

    def has(self, marker: str) -> bool:
        answered, reply = threading.Event(), {}

        def on_reply(event: dict) -> None:
            reply.update(event)
            answered.set()

        self.client.call(ops.TERMINAL_READ, {"name": "sh", "lines": 3}, on_reply)
        answered.wait(10)
        return marker in reply.get("result", {}).get("text", "")


def one_run(control: TmuxControl, ui: str, host: HostReader, n: int) -> tuple[float, float]:
    """Seconds until the host has END<n>, and until the outer screen shows it."""
    marker, seen = f"END{n}-2", {}

    def watch_host() -> None:
        while not host.has(marker):
            time.sleep(POLL)
        seen["host"] = time.perf_counter()

    start = time.perf_counter()
    control.command(f"send-keys -t {ui} -l '{SEQ.format(n=n)}'")
    control.command(f"send-keys -t {ui} Enter")
    watcher = threading.Thread(target=watch_host)
    watcher.start()
    wait_for(lambda: marker in control.command(f"capture-pane -p -t {ui}"), 60, POLL)
    outer = time.perf_counter()
    watcher.join()
    control.command(f"send-keys -t {ui} -l clear")
    control.command(f"send-keys -t {ui} Enter")
    time.sleep(1)
    return seen["host"] - start, outer - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    setup = OuterUi("tktail")
    try:
        setup.start_tiki()
        host = HostReader(Path(setup.env["TIKI_SOCKET"]))
        tails = []
        for n in range(opts.runs):
            at_host, on_screen = one_run(setup.control, setup.ui, host, n)
            tails.append(1000 * (on_screen - at_host))
            print(f"host has END at {at_host:.3f} s, the outer screen at {on_screen:.3f} s: tail {tails[-1]:.0f} ms")
        print(f"tail: median {sorted(tails)[len(tails) // 2]:.0f} ms, range {min(tails):.0f}-{max(tails):.0f} ms")
    finally:
        setup.close()


if __name__ == "__main__":
    main()
