"""Bytes the UI writes to its terminal for what a user does -- attaching, switching tabs, the
zoom, the help, a redraw, detaching -- against a tmux client doing the same in the same outer
terminal: what a user over SSH pays for each key.

An outer tmux server (COLSxROWS) has two windows: one for the real `tiki` UI, attached to a
background host with two bash tabs, the other for a tmux client attached to a second tmux
server with two windows. Each inner tmux window is split in two, its first pane as large as a
tiki tab and an idle shell beside it, as the agent panel is beside the tab (the like-for-like
layout, `outer_bytes.py --beside`). Each tab has printed 30 coloured lines of its own, and its
pane the same lines.
`tmux pipe-pane -O` copies what each client writes to its terminal; each action is counted
from its keys until both screens have settled (two looks 0.2 s apart agree).

    python bench/ui_bytes.py [--cols 140 --rows 45] [--runs 3]

| action | tiki | tmux |
|---|---|---|
| attach | `tiki attach` | `tmux attach` |
| next / last tab | prefix n / prefix l | prefix n / prefix l |
| zoom / back | prefix f, twice | prefix z, twice |
| help / close | prefix ?, Escape | prefix ?, q |
| redraw | prefix R | prefix r (`refresh-client`) |
| detach | prefix d | prefix d |

The help screens differ (tikitaka's is a dialog over the screen, tmux's a list in the pane),
so that line compares like purposes, not like screens.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import BIN, TIKI, Tmux, wait_for

# (each tab's own: rows the terminal shows already are not written again, and two tabs of the
# same lines would cost a switch nothing but the prompt)
LINES = "for i in $(seq 1 30); do printf '\\033[3%dmrow %02d\\033[0m of tab {tab}, coloured text\\n' $((i % 7 + 1)) $i; done"
ACTIONS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("next tab", ("C-\\", "n"), ("C-b", "n")),
    ("last tab", ("C-\\", "l"), ("C-b", "l")),
    ("zoom", ("C-\\", "f"), ("C-b", "z")),
    ("zoom back", ("C-\\", "f"), ("C-b", "z")),
    ("help", ("C-\\", "?"), ("C-b", "?")),
    ("help closed", ("Escape",), ("q",)),
    ("redraw", ("C-\\", "R"), ("C-b", "r")),
    ("detach", ("C-\\", "d"), ("C-b", "d")),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cols", type=int, default=140)
    parser.add_argument("--rows", type=int, default=45)
    parser.add_argument("--runs", type=int, default=3, help="attach, act and detach this many times")
    args = parser.parse_args()
    results: dict[str, list[tuple[int, int]]] = {}
    for _ in range(args.runs):
        for label, sizes in one_run(args).items():
            results.setdefault(label, []).append(sizes)
    print(f"bytes written to the terminal, a {args.cols}x{args.rows} outer tmux, {args.runs} runs (median):")
    print(f"  {'action':14} {'tiki UI':>9} {'tmux client':>12}  tiki / tmux")
    for label, pairs in results.items():
        tiki_bytes = int(statistics.median(p[0] for p in pairs))
        tmux_bytes = int(statistics.median(p[1] for p in pairs))
        print(f"  {label:14} {tiki_bytes:>9,} {tmux_bytes:>12,}  {tiki_bytes / max(1, tmux_bytes):.1f}x")


def one_run(args: argparse.Namespace) -> dict[str, tuple[int, int]]:
    work = Path(tempfile.mkdtemp(prefix="tkub-"))
    host: subprocess.Popen[bytes] | None = None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX"))}
    env.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"),
               PATH=f"{BIN}:{env.get('PATH', '')}")
    bash = 'command = ["bash", "--norc", "--noprofile"]\n'
    (work / "ws.toml").write_text(f'[[tab]]\nname = "a"\n{bash}[[tab]]\nname = "b"\n{bash}')
    exports = " ".join(f"{k}='{v}'" for k, v in env.items() if k.startswith("TIKI_"))
    inner = Tmux(cols=args.cols, rows=args.rows - 1, name=f"tkubi{os.getpid()}")  # (the client's status line)
    outer = Tmux(cols=args.cols, rows=args.rows, name=f"tkub{os.getpid()}")
    try:
        host = subprocess.Popen([TIKI, "serve", "--workspace", str(work / "ws.toml")], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: subprocess.run([TIKI, "terminal-list"], env=env, capture_output=True).returncode == 0, 30)
        outer.run("rename-window", "-t", "b", "tiki")
        outer.run("new-window", "-d", "-n", "tmux", "bash --norc --noprofile")
        sizes: dict[str, tuple[int, int]] = {}
        attach = {"tiki": f"cd {work}; {exports} {TIKI} attach", "tmux": f"TMUX= tmux -L {inner.name} attach"}
        for window, command in attach.items():  # (a first time: the tabs take the UI's size)
            outer.run("send-keys", "-t", window, command, "Enter")
        wait_for(lambda: "? help" in outer.run("capture-pane", "-p", "-t", "tiki"), 30)
        fill(inner, env)
        for window in attach:
            outer.run("send-keys", "-t", window, *(("C-\\", "d") if window == "tiki" else ("C-b", "d")))
            settle(outer, window)
            outer.run("send-keys", "-t", window, "clear", "Enter")
            outer.run("send-keys", "-t", window, attach[window])  # (typed, not counted: its echo)
            settle(outer, window)
        sizes["attach"] = counted(outer, work, "attach", {w: ("Enter",) for w in attach},
                                  {"tiki": "? help", "tmux": "row 30"})
        for label, tiki_keys, tmux_keys in ACTIONS:
            sizes[label] = counted(outer, work, label, {"tiki": tiki_keys, "tmux": tmux_keys})
        return sizes
    finally:
        subprocess.run([TIKI, "shutdown"], env=env, capture_output=True)
        if host is not None:
            host.wait(30)
        inner.close()
        outer.close()
        shutil.rmtree(work, ignore_errors=True)


def fill(inner: Tmux, env: dict[str, str]) -> None:
    """Each tab's lines in it and in its pane; each inner window split as the tab and the panel
    beside it are. (After the UI attached: the tabs take its size.)"""
    inner.run("new-window", "-d", "-t", "b:", "bash --norc --noprofile")
    for window in ("b:0", "b:1"):
        inner.run("split-window", "-h", "-d", "-t", f"{window}.0", "bash --norc --noprofile")
    for pane in ("b:0.0", "b:1.0"):  # (keys sent before its bash is up are lost)
        wait_for(lambda: "bash-" in inner.run("capture-pane", "-p", "-t", pane), 10)
    for tab in ("a", "b"):
        subprocess.run([TIKI, "terminal-send", tab, f"clear; {LINES.format(tab=tab)}"], env=env, capture_output=True,
                       check=True)
    cells = subprocess.run([TIKI, "terminal-read", "a", "--cells", "--json"], env=env, capture_output=True, text=True)
    size = json.loads(cells.stdout)
    for window, tab in (("b:0", "a"), ("b:1", "b")):
        inner.run("resize-pane", "-t", f"{window}.0", "-x", str(size["cols"]), "-y", str(size["rows"]))
        inner.run("send-keys", "-t", f"{window}.0", f"clear; {LINES.format(tab=tab)}", "Enter")
    inner.run("select-window", "-t", "b:0")
    wait_for(lambda: "row 30" in inner.run("capture-pane", "-p", "-t", "b:1.0"), 10)
    time.sleep(1.0)


def counted(outer: Tmux, work: Path, label: str, keys: dict[str, tuple[str, ...]],
            ready: dict[str, str] | None = None) -> tuple[int, int]:
    """Bytes each window's program wrote from its keys until its screen settled."""
    files = {window: work / f"{label.replace(' ', '-')}.{window}.bytes" for window in keys}
    for window, path in files.items():
        outer.run("pipe-pane", "-O", "-t", window, f"cat > '{path}'")
    time.sleep(0.3)  # (the pipes are open before the keys go)
    for window, sent in keys.items():
        outer.run("send-keys", "-t", window, *sent)
    for window in keys:
        if ready:
            wait_for(lambda: ready[window] in outer.run("capture-pane", "-p", "-t", window), 30)
        settle(outer, window)
    for window in files:
        outer.run("pipe-pane", "-t", window)
    time.sleep(0.3)
    return tuple(files[w].stat().st_size if files[w].exists() else 0 for w in ("tiki", "tmux"))  # type: ignore[return-value]


def settle(outer: Tmux, window: str) -> None:
    last = [""]

    def same() -> bool:
        time.sleep(0.2)
        before, last[0] = last[0], outer.run("capture-pane", "-p", "-t", window)
        return last[0] == before

    wait_for(same, 10, 0.0)


if __name__ == "__main__":
    main()
