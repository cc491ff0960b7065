"""`terminal-send` then `terminal-read` showing the echo, vs `tmux send-keys` + `capture-pane`.

Both sides run as real command-line processes, as a user or a peer AI would run them, and
poll the read until the echo is there. Also prints the in-process (socket client) figure,
which leaves out Python's start-up.

    python bench/send_read.py [--n 40]
"""

from __future__ import annotations

import argparse
import time

from common import TikiHost, Tmux, summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    opts = parser.parse_args()
    host = TikiHost('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    tmux = Tmux()
    pane = tmux.new_window("bash --norc --noprofile")
    time.sleep(0.5)
    cli, inproc, ref = [], [], []
    try:
        for i in range(opts.n):
            mark = f"cli{i}x"
            start = time.perf_counter()
            host.cli("terminal-send", "sh", f"echo {mark}")
            while mark not in host.cli("terminal-read", "sh", "--lines", "5").stdout:
                pass
            cli.append(time.perf_counter() - start)

            mark = f"ipc{i}x"
            start = time.perf_counter()
            host.call("terminal.send", {"name": "sh", "text": f"echo {mark}"})
            while mark not in host.read("sh", 5):
                pass
            inproc.append(time.perf_counter() - start)

            mark = f"tmx{i}x"
            start = time.perf_counter()
            tmux.run("send-keys", "-t", pane, f"echo {mark}", "Enter")
            while mark not in tmux.capture(pane):
                pass
            ref.append(time.perf_counter() - start)
        print(f"tiki CLI  (terminal-send + terminal-read): {summary(cli)}")
        print(f"tiki IPC  (socket client, no process start): {summary(inproc)}")
        print(f"tmux      (send-keys + capture-pane):        {summary(ref)}")
        ratio = sorted(cli)[len(cli) // 2] / sorted(ref)[len(ref) // 2]
        print(f"median ratio tiki CLI / tmux: {ratio:.2f}")
    finally:
        host.close()
        tmux.close()


if __name__ == "__main__":
    main()
