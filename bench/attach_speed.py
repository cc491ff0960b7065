"""Attach and UI speed (issue 13): the watched tab through a real outer terminal, and idle CPU.

An outer tmux server (140x45) has two windows, each with a warm `bash --norc --noprofile`:
one runs the real `tiki` UI (attached to a background host whose tab is the same bash), the
other is a plain tmux pane (the issue's reference). In each, `seq 1 600000; echo END` is typed
and timed until END is on the OUTER screen. Both are typed and polled alike: `send-keys` and
`capture-pane` every POLL seconds over one tmux control-mode client; the runs are interleaved.

A third window runs a real tmux client of another tmux server (its pane the same bash), timed
the same way: a multiplexer seen through the outer terminal, as tikitaka's UI is -- the path a
user of a tmux-based tool takes. It is printed beside the target's figures, not instead of them.

Then idle CPU over --idle seconds: the host alone (the UI detached with the prefix), then the
host and an attached UI (the tab idle at its prompt); the outer tmux server alongside.

    python bench/attach_speed.py [--runs 5] [--idle 20] [--poll 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import BIN, TIKI, Tmux, TmuxControl, cpu_seconds, kill_server, wait_for

from tikitaka.app.client import call

COLS, ROWS = 140, 45
POLL = 0.005
# The poll's step is not shared alike: a capture asked for while the plain pane's tmux is busy
# with the flood is answered once it has read the end, while the UI's outer tmux is idle and
# the END waits for the next poll (1-3 ms of the UI's tail at 5 ms). A finer step loads the
# reference instead: at 1 ms the pane's tmux serves a capture a millisecond during its flood
# and takes more CPU per run. 5 ms is the figure kept (bench/README.md, round 11).
POLL_HELP = "how often the outer screen is looked at, in ms (default 5)"
SEQ = "seq 1 600000; echo END{n}-$((1+1))"  # the output says END<n>-2, the typed line does not


def tiki_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX", "COLUMNS", "LINES"))}
    env.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"),
               PATH=f"{BIN}:{env.get('PATH', '')}")
    return env


class OuterUi:
    """An outer tmux server (COLS x ROWS) with a window `ui` running the real `tiki` UI in a warm
    bash, attached to the background host it starts on a throwaway socket (one bash tab)."""

    def __init__(self, prefix: str) -> None:
        self.work = Path(tempfile.mkdtemp(prefix=prefix))
        self.env = tiki_env(self.work)
        self.ws = self.work / "ws.toml"
        self.ws.write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
        self.outer = Tmux(cols=COLS, rows=ROWS, name=f"{prefix}{os.getpid()}")
        self.control = TmuxControl(self.outer.name, "b")
        self.outer.run("new-window", "-d", "-n", "ui", "bash --norc --noprofile")
        self.ui = self.control.command("display-message -p -t b:ui '#{pane_id}'").strip()

    def start_tiki(self) -> None:
        exports = " ".join(f"{k}='{v}'" for k, v in self.env.items() if k.startswith("TIKI_") or k == "PATH")
        self.control.command(f"send-keys -t {self.ui} -l \"{exports} PS1='$ ' {TIKI} --workspace {self.ws}\"")
        self.control.command(f"send-keys -t {self.ui} Enter")
        wait_for(lambda: "? help" in self.control.command(f"capture-pane -p -t {self.ui}"), 60, 0.1)

    def close(self) -> None:
        subprocess.run([TIKI, "shutdown"], env=self.env, capture_output=True)
        self.control.close()
        self.outer.close()
        shutil.rmtree(self.work, ignore_errors=True)


def timed(control: TmuxControl, target: str, command: str, marker: str, cpu: dict[str, list[float]],
          pids: dict[str, int], poll: float = POLL) -> float:
    """Seconds until `marker` is on the outer screen; each of `pids`' CPU seconds meanwhile into `cpu`."""
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    start = time.perf_counter()
    control.command(f"send-keys -t {target} -l '{command}'")
    control.command(f"send-keys -t {target} Enter")
    wait_for(lambda: marker in control.command(f"capture-pane -p -t {target}"), 600, poll)
    elapsed = time.perf_counter() - start
    for name, pid in pids.items():
        cpu.setdefault(name, []).append(round(cpu_seconds(pid) - before[name], 2))
    control.command(f"send-keys -t {target} -l clear")
    control.command(f"send-keys -t {target} Enter")
    time.sleep(1)
    return elapsed


def cpu_percent(pids: list[int], seconds: float) -> list[float]:
    before = [cpu_seconds(pid) for pid in pids]
    time.sleep(seconds)
    return [100 * (cpu_seconds(pid) - b) / seconds for pid, b in zip(pids, before)]


def ui_pid_of(control: TmuxControl, ui: str) -> int:
    pane_pid = int(control.command(f"display-message -p -t {ui} '#{{pane_pid}}'").strip())
    return int(subprocess.run(["pgrep", "-P", str(pane_pid)], capture_output=True, text=True).stdout.split()[0])


def profile(out: str, host_pid: int, control: TmuxControl, ui: str) -> list[subprocess.Popen[bytes]]:
    """py-spy (pip install py-spy) on the host and the UI; raw folded stacks for counting by hand."""
    Path(out).mkdir(parents=True, exist_ok=True)
    spies = [subprocess.Popen(["py-spy", "record", "--rate", "200", *os.environ.get("PYSPY_ARGS", "").split(), "--format", "raw", "-o",
                               f"{out}/{name}.txt", "--pid", str(pid)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
             for name, pid in (("host", host_pid), ("ui", ui_pid_of(control, ui)))]
    time.sleep(1)
    return spies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=float, default=20)
    parser.add_argument("--profile", metavar="DIR", help="py-spy record the host and the UI during the tiki runs")
    parser.add_argument("--poll", type=float, default=POLL * 1000, metavar="MS", help=POLL_HELP)
    opts = parser.parse_args()
    poll = opts.poll / 1000
    setup = OuterUi("tkattach")
    inner = f"tkinner{os.getpid()}"  # the tmux server behind the tmux client's window
    env, control, ui = setup.env, setup.control, setup.ui
    try:
        plain = control.command("display-message -p -t b:0 '#{pane_id}'").strip()
        control.command(f"send-keys -t {plain} -l \"PS1='$ '\"")
        control.command(f"send-keys -t {plain} Enter")
        nested = control.command(f"new-window -d -P -F '#{{pane_id}}' -n nested "
                                 f"\"tmux -L {inner} -f /dev/null new-session -s n 'bash --norc --noprofile'\"").strip()
        wait_for(lambda: "[n]" in control.command(f"capture-pane -p -t {nested}"), 20, 0.05)
        control.command(f"send-keys -t {nested} -l \"PS1='$ '\"")
        control.command(f"send-keys -t {nested} Enter")
        inner_pid = int(subprocess.run(["tmux", "-L", inner, "display-message", "-p", "#{pid}"],
                                       capture_output=True, text=True).stdout)
        setup.start_tiki()
        host_pid = call("host.info", socket_path=Path(env["TIKI_SOCKET"]))["pid"]
        times: dict[str, list[float]] = {"tiki": [], "tmux": [], "tmux client": []}
        spies = profile(opts.profile, host_pid, control, ui) if opts.profile else []
        tmux_pid = int(control.command("display-message -p '#{pid}'").strip())
        ui_pid = ui_pid_of(control, ui)
        cpu: dict[str, dict[str, list[float]]] = {"tiki": {}, "tmux": {}, "tmux client": {}}
        for n in range(opts.runs):
            times["tiki"].append(timed(control, ui, SEQ.format(n=n), f"END{n}-2", cpu["tiki"],
                                       {"host": host_pid, "UI": ui_pid, "outer tmux": tmux_pid}, poll))
            times["tmux"].append(timed(control, plain, SEQ.format(n=n), f"END{n}-2", cpu["tmux"],
                                       {"tmux server": tmux_pid}, poll))
            times["tmux client"].append(timed(control, nested, SEQ.format(n=n), f"END{n}-2", cpu["tmux client"],
                                              {"inner tmux": inner_pid, "outer tmux": tmux_pid}, poll))
        for spy in spies:
            spy.send_signal(2)  # py-spy writes its output on SIGINT
            spy.wait(60)
        best = {side: min(runs) for side, runs in times.items()}
        print(f"seq 1 600000 until END is on the outer {COLS}x{ROWS} screen, polled every {opts.poll:g} ms")
        for side, runs in times.items():
            print(f"  {side:<11} best {best[side]:.2f} s  runs {[round(t, 2) for t in runs]}  CPU s per run: "
                  + ", ".join(f"{name} {values}" for name, values in cpu[side].items()))
        print(f"  ratio tikitaka/tmux (tmux time / tiki time): {best['tmux'] / best['tiki']:.2f}  (target >= 1.0)")
        pairs = sorted(tm / ti for ti, tm in zip(times["tiki"], times["tmux"]))
        print(f"  each run against the tmux run right after it: median {pairs[len(pairs) // 2]:.2f}, "
              f"range {pairs[0]:.2f}-{pairs[-1]:.2f}  (the machine's speed drifts; a pair shares it)")
        nested_pairs = sorted(tm / ti for ti, tm in zip(times["tiki"], times["tmux client"]))
        print(f"  beside a tmux client in the outer terminal (no target): best to best "
              f"{best['tmux client'] / best['tiki']:.2f}, pairs median {nested_pairs[len(nested_pairs) // 2]:.2f}")

        time.sleep(3)
        host, ui_cpu, tmux_cpu = cpu_percent([host_pid, ui_pid, tmux_pid], opts.idle)
        print(f"idle, UI attached, over {opts.idle:g} s: host {host:.2f}% CPU, UI {ui_cpu:.2f}%, "
              f"outer tmux server {tmux_cpu:.2f}%  (targets: UI < 2%)")
        control.command(f"send-keys -t {ui} C-\\\\ d")  # detach with the prefix
        wait_for(lambda: "$ " in control.command(f"capture-pane -p -t {ui}").splitlines()[-1] or
                 not os.path.exists(f"/proc/{ui_pid}"), 20, 0.1)
        time.sleep(3)
        (host,) = cpu_percent([host_pid], opts.idle)
        print(f"idle, no UI, over {opts.idle:g} s: host {host:.2f}% CPU  (target < 1%)")
    finally:
        kill_server(inner)
        setup.close()


if __name__ == "__main__":
    main()
