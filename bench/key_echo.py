"""Key-to-echo latency in the TUI: `tiki` runs in a PTY we own (140x45), attached to the
background host it starts (as a user's `tiki` is); a keystroke is written to the TUI's own
terminal and timed until its echo shows in the TUI's output (parsed with the same emulator the
tabs use). Idle, then while another tab prints at full speed, then into a program that
animates while you type (tests/animated_input.py: an agent CLI's spinner every 50 ms over its
input box). The references, measured alike: a tmux client in a PTY of the same size, attached
to a bash (and to the animating program) in a new tmux server -- the tool a user would
otherwise type through -- and bash on a raw PTY (no multiplexer at all).

Keys are typed GAP ms after the last echo showed (default 50: 20 keys a second, faster than
anyone types; key repeat is ~30 a second). With no gap every key lands while the host waits
out the frame it just sent (at most 60 screen frames a second per tab), and the figure is that
wait, ~17 ms, which no typist meets: `--gap 0` shows it.

    python bench/key_echo.py [--n 60] [--gap 50]
"""

from __future__ import annotations

import argparse
import json
import os
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BIN, TIKI, kill_server, summary

from tikitaka.terminals.pty import spawn
from tikitaka.terminals.screen import Screen

COLS, ROWS = 140, 45
ANIMATED = [sys.executable, str(Path(__file__).resolve().parent.parent / "tests" / "animated_input.py"), "0.05"]


class Tty:
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = spawn(argv, cwd=str(Path.cwd()), env=env, cols=COLS, rows=ROWS)
        self.screen = Screen(COLS, ROWS, 100)

    def pump_until(self, predicate, timeout: float = 20) -> bool:
        import select

        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if predicate():
                return True
            ready, _, _ = select.select([self.proc._fd], [], [], 0.05)  # noqa: SLF001 - bench only
            if ready:
                reply = self.screen.feed(self.proc.read(65536))
                if reply:
                    self.proc.write(reply)
        return predicate()

    def text(self) -> str:
        return self.screen.text(ROWS)


def measure(tty: Tty, n: int, row_has, gap: float) -> list[float]:
    samples = []
    typed = ""
    for i in range(n):
        time.sleep(gap)
        char = string.ascii_lowercase[i % 26]
        typed += char
        start = time.perf_counter()
        tty.proc.write(char.encode())
        if not tty.pump_until(lambda: row_has(typed)):
            raise RuntimeError(f"echo of {typed!r} never showed")
        samples.append(time.perf_counter() - start)
        if len(typed) >= 26:
            tty.proc.write(b"\x15")  # ctrl+u: clear the line
            tty.pump_until(lambda: not row_has(typed[:3]), 5)
            typed = ""
    tty.proc.write(b"\x15")  # leave the line empty for whoever measures next
    tty.pump_until(lambda: not typed or not row_has(typed), 5)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--gap", type=float, default=50.0, help="ms from an echo to the next key (default 50)")
    opts = parser.parse_args()
    gap = opts.gap / 1000
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX", "COLUMNS", "LINES"))}
    env.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"),
               PATH=f"{BIN}:{env.get('PATH', '')}", TERM="xterm-256color", PS1="$ ")
    ws = work / "ws.toml"
    ws.write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'
                  '[[tab]]\nname = "load"\ncommand = ["bash", "--norc", "--noprofile"]\n'
                  f'[[tab]]\nname = "agent"\ncommand = {json.dumps(ANIMATED)}\n')

    raw = Tty(["bash", "--norc", "--noprofile"], env)
    raw.pump_until(lambda: "$" in raw.text())
    raw_samples = measure(raw, opts.n, lambda typed: ("$ " + typed) in raw.text(), gap)
    raw.proc.kill()

    server = f"keyecho{os.getpid()}"
    tmux = Tty(["tmux", "-L", server, "-f", "/dev/null", "new-session", "env", "PS1=$ ", "bash", "--norc",
                "--noprofile"], env)
    tmux.pump_until(lambda: "$ " in tmux.text(), 10)
    tmux_samples = measure(tmux, opts.n, lambda typed: ("$ " + typed) in tmux.text(), gap)
    kill_server(server)
    tmux.proc.kill()
    tmux = Tty(["tmux", "-L", server, "-f", "/dev/null", "new-session", *ANIMATED], env)
    tmux.pump_until(lambda: "Working" in tmux.text(), 10)
    tmux_animated = measure(tmux, opts.n, input_has(tmux), gap)
    kill_server(server)
    tmux.proc.kill()

    tui = Tty([TIKI, "--workspace", str(ws)], env)
    tui.pump_until(lambda: "? help" in tui.text(), 30)  # the tab bar's prefix hint: attached
    prompt_has = lambda typed: any(line.lstrip().startswith("$ " + typed) for line in tui.text().splitlines())  # noqa: E731
    tui.pump_until(lambda: prompt_has(""), 10)
    idle = measure(tui, opts.n, prompt_has, gap)

    subprocess.run([TIKI, "terminal-send", "load", "yes 'load line with some text 한국어'"], env=env, check=True)
    time.sleep(1)
    loaded = measure(tui, opts.n, prompt_has, gap)
    subprocess.run([TIKI, "terminal-key", "load", "ctrl+c"], env=env)
    tui.proc.write(b"\x1c3")  # the prefix, then 3: the animating tab
    tui.pump_until(lambda: "Working" in tui.text(), 10)
    animated = measure(tui, opts.n, input_has(tui), gap)
    subprocess.run([TIKI, "shutdown"], env=env)
    tui.proc.kill()
    print(f"keys typed {opts.gap:g} ms after the last echo")
    print(f"raw PTY bash echo (reference):            {summary(raw_samples)}")
    print(f"tmux client, bash in it (reference):      {summary(tmux_samples)}")
    print(f"tiki TUI, idle:                           {summary(idle)}")
    print(f"tiki TUI, another tab printing (`yes`):   {summary(loaded)}  target p95 <= 33 ms")
    print(f"into a program that animates: tmux client {summary(tmux_animated)}")
    print(f"                               tiki TUI    {summary(animated)}")


def input_has(tty: Tty):
    """Whether the animating program's input line shows `typed`."""
    return lambda typed: any(line.lstrip().startswith("> " + typed) for line in tty.text().splitlines())


if __name__ == "__main__":
    main()
