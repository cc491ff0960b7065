"""How long `tiki` takes to show a tab, cold (no host: it starts one) and warm (attaching to a
running host), beside `tmux` doing the same: `tmux new-session` on a new server, and `tmux
attach` to a running one.

An outer tmux server (140x45, as attach_speed.py) has a window with a warm `bash --norc
--noprofile`. Each command is typed there and timed until its tab's marker is on the OUTER
screen: the tab runs `echo tab-ready-$((1+n)); exec bash`, so the marker shows once the tab's
program ran and the screen it printed reached the terminal the user looks at. Both sides are
typed and polled alike (`send-keys` and `capture-pane` every POLL s over one tmux control-mode
client), interleaved; each run detaches (tiki: the prefix then `d`; tmux: C-b d) and, for the
cold runs, stops the server (`tiki shutdown`, `tmux kill-server`).

    python bench/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from attach_speed import OuterUi
from common import TIKI, kill_server, wait_for

POLL = 0.005
INNER = "startupinner"


def timed(outer: OuterUi, command: str, marker: str) -> float:
    control, pane = outer.control, outer.ui
    start = time.perf_counter()
    control.command(f"send-keys -t {pane} -l \"{command}\"")
    control.command(f"send-keys -t {pane} Enter")
    wait_for(lambda: marker in control.command(f"capture-pane -p -t {pane}"), 60, POLL)
    return time.perf_counter() - start


def detach(outer: OuterUi, keys: str) -> None:
    control, pane = outer.control, outer.ui
    for _ in range(10):  # (a client that drew its screen may not read keys yet: again)
        control.command(f"send-keys -t {pane} {keys}")
        try:
            wait_for(lambda: "detached" in control.command(f"capture-pane -p -t {pane}"), 2, 0.05)
            break
        except TimeoutError:
            continue
    control.command(f"send-keys -t {pane} C-u")  # (a key sent again after all reached the shell)
    control.command(f"send-keys -t {pane} -l clear")
    control.command(f"send-keys -t {pane} Enter")
    time.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    outer = OuterUi("tkstart")
    exports = " ".join(f"{k}='{v}'" for k, v in outer.env.items() if k.startswith("TIKI_") or k == "PATH")
    outer.control.command(f"send-keys -t {outer.ui} -l \"export {exports} PS1='$ '\"")
    outer.control.command(f"send-keys -t {outer.ui} Enter")
    times: dict[str, list[float]] = {"tiki cold": [], "tmux cold": [], "tiki warm": [], "tmux warm": []}
    try:
        for n in range(args.runs):
            tab = f"echo tab-ready-$((1+{n})); exec bash --norc --noprofile"  # (the typed line has no marker)
            ws = outer.work / f"ws{n}.toml"
            ws.write_text(f'[[tab]]\nname = "sh"\ncommand = ["sh", "-c", "{tab}"]\n')
            times["tiki cold"].append(timed(outer, f"{TIKI} --workspace {ws}", f"tab-ready-{n + 1}"))
            detach(outer, "C-\\\\ d")
            times["tiki warm"].append(timed(outer, TIKI, f"tab-ready-{n + 1}"))
            detach(outer, "C-\\\\ d")
            subprocess.run([TIKI, "shutdown"], env=outer.env, capture_output=True)

            inner = f"tmux -L {INNER} -f /dev/null new-session '{tab}'"
            times["tmux cold"].append(timed(outer, inner, f"tab-ready-{n + 1}"))
            detach(outer, "C-b d")
            times["tmux warm"].append(timed(outer, f"tmux -L {INNER} attach", f"tab-ready-{n + 1}"))
            detach(outer, "C-b d")
            kill_server(INNER)
    finally:
        kill_server(INNER)
        outer.close()
    print(f"time until the tab shows on the outer {outer.outer.name} screen, {args.runs} runs each, interleaved; ms")
    for kind in ("cold", "warm"):
        tiki, tmux = times[f"tiki {kind}"], times[f"tmux {kind}"]
        print(f"  {kind}: tiki median {1000 * statistics.median(tiki):7.1f} min {1000 * min(tiki):7.1f};"
              f"  tmux median {1000 * statistics.median(tmux):6.1f} min {1000 * min(tmux):6.1f};"
              f"  tiki / tmux (median) {statistics.median(tiki) / statistics.median(tmux):5.1f}x")


if __name__ == "__main__":
    main()
