"""PTY -> screen throughput, like for like (issues 2, 9, 13): `cat` of a ~30 MB coloured,
CJK-laden stream in a warm shell, timed until its last line is readable.

- tikitaka headless: nobody watches the tab (a UI session is attached only to type);
- tikitaka watched: a UI session watches the tab and takes every screen frame (60 a second),
  as an attached TUI would;
- tmux: a pane of the same size.

Both sides alike: a warm bash, the command typed at once by each one's own client (a UI session
/ `send-keys` over a control-mode client), the screen polled every POLL seconds over a
persistent connection (tikitaka's socket / the same tmux control client), runs interleaved.

    python bench/throughput.py [--mb 30] [--runs 3]
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from common import COLS, ROWS, TikiHost, Tmux, TmuxControl, wait_for

from tikitaka.app.ui_client import UiClient
from tikitaka.protocol import ops

PALETTE = [31, 32, 33, 34, 35, 36, 91, 92]
POLL = 0.005


def make_stream(path: Path, megabytes: int) -> int:
    lines = []
    for i in range(4000):
        colour = PALETTE[i % len(PALETTE)]
        lines.append(
            f"\x1b[{colour}m{i:06d}\x1b[0m \x1b[1mbold\x1b[0m 한국어 텍스트 日本語 "
            f"\x1b[38;5;{i % 256}mindexed\x1b[0m \x1b[38;2;{i % 256};100;200mtruecolor\x1b[0m tail\n"
        )
    block = "".join(lines).encode()
    with open(path, "wb") as handle:
        written = 0
        while written < megabytes * 1_000_000:
            handle.write(block)
            written += len(block)
    return written


class TikiSide:
    def __init__(self) -> None:
        self.host = TikiHost('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
        self.typist = UiClient(Path(self.host.env["TIKI_SOCKET"]), client="bench")
        self.tab = self.typist.connect(COLS, ROWS)["tabs"][0]["id"]
        self.typist.start(lambda event: None, lambda reason: None)

    def run(self, command: str, marker: str, watched: bool) -> float:
        viewer = None
        if watched:
            viewer = UiClient(Path(self.host.env["TIKI_SOCKET"]), client="bench-viewer")
            viewer.connect(COLS, ROWS, tab=self.tab)
            frames = [0]
            viewer.start(lambda event: frames.__setitem__(0, frames[0] + 1), lambda reason: None)
            wait_for(lambda: frames[0], 10)
        start = time.perf_counter()
        self.typist.input(self.tab, f"{command}\r".encode())
        wait_for(lambda: marker in self.read(), 60, POLL)
        elapsed = time.perf_counter() - start
        if viewer is not None:
            viewer.close()
        self.typist.input(self.tab, b"clear\r")
        return elapsed

    def read(self) -> str:
        """The tab's last 3 lines, asked on the session's connection (as tmux's capture-pane
        goes over its control client): no new connection per look."""
        answered = threading.Event()
        reply: dict = {}

        def on_reply(event: dict) -> None:
            reply.update(event)
            answered.set()

        self.typist.call(ops.TERMINAL_READ, {"name": "sh", "lines": 3}, on_reply)
        answered.wait(30)
        return reply.get("result", {}).get("text", "")

    def close(self) -> None:
        self.typist.close()
        self.host.close()


class TmuxSide:
    def __init__(self) -> None:
        self.tmux = Tmux()
        self.control = TmuxControl(self.tmux.name, "b")
        self.pane = self.control.command("display-message -p -t b '#{pane_id}'").strip()

    def run(self, command: str, marker: str) -> float:
        start = time.perf_counter()
        self.control.command(f"send-keys -t {self.pane} -l '{command}'")
        self.control.command(f"send-keys -t {self.pane} Enter")
        wait_for(lambda: marker in self.control.capture(self.pane, "-3"), 600, POLL)
        elapsed = time.perf_counter() - start
        self.control.command(f"send-keys -t {self.pane} -l clear")
        self.control.command(f"send-keys -t {self.pane} Enter")
        return elapsed

    def close(self) -> None:
        self.control.close()
        self.tmux.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    data = work / "stream.txt"
    size = make_stream(data, opts.mb)
    tiki, tmux = TikiSide(), TmuxSide()
    times: dict[str, list[float]] = {"headless": [], "watched": [], "tmux": []}
    try:
        for run in range(opts.runs):  # interleaved so every side sees the same machine state
            marker = f"END{run}"
            command = f"cat {data}; echo {marker}-$((1+1))"
            times["headless"].append(tiki.run(command, f"{marker}-2", watched=False))
            time.sleep(1)
            times["watched"].append(tiki.run(command, f"{marker}-2", watched=True))
            time.sleep(1)
            times["tmux"].append(tmux.run(command, f"{marker}-2"))
            time.sleep(1)
        mb = size / 1e6
        best = {side: min(runs) for side, runs in times.items()}
        print(f"stream: {mb:.1f} MB, {COLS}x{ROWS}, best of {opts.runs}, polled every {POLL * 1000:g} ms")
        for side, runs in times.items():
            print(f"{side:<9} {best[side]:.2f} s ({mb / best[side]:.1f} MB/s)  runs {[round(t, 2) for t in runs]}")
        print(f"ratio headless tikitaka/tmux: {best['tmux'] / best['headless']:.2f}  (target >= 2.0)")
        print(f"ratio watched  tikitaka/tmux: {best['tmux'] / best['watched']:.2f}")
    finally:
        tiki.close()
        tmux.close()
        data.unlink()


if __name__ == "__main__":
    main()
