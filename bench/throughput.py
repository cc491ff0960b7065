"""PTY -> screen throughput: `cat` of a ~30 MB coloured, CJK-laden stream in a tikitaka tab
vs a tmux pane, in the same run, end to end (until the last line is readable).

    python bench/throughput.py [--mb 30] [--runs 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from common import TikiHost, Tmux, wait_for

PALETTE = [31, 32, 33, 34, 35, 36, 91, 92]


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


def time_tiki(host: TikiHost, data: Path, marker: str) -> float:
    start = time.perf_counter()
    host.call("terminal.send", {"name": "sh", "text": f"cat {data}; echo {marker}-$((1+1))"})
    wait_for(lambda: f"{marker}-2" in host.read("sh", 3), 600, 0.005)
    return time.perf_counter() - start


def time_tmux(tmux: Tmux, data: Path, marker: str) -> float:
    start = time.perf_counter()
    pane = tmux.new_window(f"bash --norc -c 'cat {data}; echo {marker}-$((1+1)); sleep 600'")
    wait_for(lambda: f"{marker}-2" in tmux.capture(pane, "-3"), 600, 0.005)
    elapsed = time.perf_counter() - start
    tmux.run("kill-pane", "-t", pane)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    data = work / "stream.txt"
    size = make_stream(data, opts.mb)
    host = TikiHost('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    tmux = Tmux()
    try:
        tiki_times, tmux_times = [], []
        for run in range(opts.runs):  # interleaved so both see the same machine state
            tiki_times.append(time_tiki(host, data, f"TIKIEND{run}"))
            tmux_times.append(time_tmux(tmux, data, f"TMUXEND{run}"))
        best_tiki, best_tmux = min(tiki_times), min(tmux_times)
        mb = size / 1e6
        print(f"stream: {mb:.1f} MB, best of {opts.runs}")
        print(f"tikitaka: {best_tiki:.2f} s  ({mb / best_tiki:.1f} MB/s)  runs {[round(t, 2) for t in tiki_times]}")
        print(f"tmux:     {best_tmux:.2f} s  ({mb / best_tmux:.1f} MB/s)  runs {[round(t, 2) for t in tmux_times]}")
        print(f"throughput ratio tikitaka/tmux: {best_tmux / best_tiki:.2f} (>= 1.0 means at least tmux's)")
    finally:
        host.close()
        tmux.close()
        data.unlink()


if __name__ == "__main__":
    main()
