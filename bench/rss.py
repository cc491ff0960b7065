"""Host memory with 8 tabs each holding 10,000 lines of scrollback, vs a tmux server holding
the same 8 panes (history-limit 10000); then what each keeps once those tabs / panes are
closed (the first tab / the session's first window stay open).

    python bench/rss.py
"""

from __future__ import annotations

import time

from common import TikiHost, Tmux, rss_kb, wait_for

TABS = 8
CLOSED_AFTER = 2  # seconds: what is given back is given back within ~0.5 s
LINES = 11_000  # a little more than the scrollback, so every tab's history is full
FILL = f"for i in $(seq {LINES}); do echo \"line $i: the quick brown fox jumps over the lazy dog 0123456789\"; done; echo FILLED-$((1+1))"


def main() -> None:
    workspace = "".join(f'[[tab]]\nname = "t{i}"\ncommand = ["bash", "--norc", "--noprofile"]\n' for i in range(TABS))
    host = TikiHost(workspace)
    tmux = Tmux(history=10_000)
    try:
        idle_kb = host.rss_kb()
        for i in range(TABS):
            host.call("terminal.send", {"name": f"t{i}", "text": FILL})
        for i in range(TABS):
            wait_for(lambda: "FILLED-2" in host.read(f"t{i}", 3), 300, 0.05)
        time.sleep(1)
        full_kb = host.rss_kb()
        panes = [tmux.new_window(f"bash --norc -c '{FILL}; sleep 600'") for _ in range(TABS)]
        for pane in panes:
            wait_for(lambda: "FILLED-2" in tmux.capture(pane, "-3"), 300, 0.05)
        tmux_kb = rss_kb(tmux.server_pid())
        print(f"tiki host RSS: {idle_kb / 1024:.1f} MB at start, {full_kb / 1024:.1f} MB with {TABS} tabs x 10,000 lines")
        print(f"tmux server RSS with the same {TABS} panes: {tmux_kb / 1024:.1f} MB")
        print(f"ratio tiki/tmux: {full_kb / tmux_kb:.2f} (target: tiki <= 150 MB)")
        for i in range(1, TABS):
            host.cli("terminal-close", f"t{i}")
        for pane in panes:
            tmux.run("kill-pane", "-t", pane)
        time.sleep(CLOSED_AFTER)
        closed_kb, tmux_closed_kb = host.rss_kb(), rss_kb(tmux.server_pid())
        print(f"{CLOSED_AFTER:g} s after closing {TABS - 1} of the tabs / all {TABS} panes: tiki host "
              f"{closed_kb / 1024:.1f} MB (it gave back {(full_kb - closed_kb) / 1024:.1f} MB), tmux server "
              f"{tmux_closed_kb / 1024:.1f} MB (gave back {(tmux_kb - tmux_closed_kb) / 1024:.1f} MB)")
    finally:
        host.close()
        tmux.close()


if __name__ == "__main__":
    main()
