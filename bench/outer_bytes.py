"""Bytes the outer terminal receives while a tab streams lines, as an AI CLI prints its answer:
what a user over SSH pays for. No target in the issues; the reference is a tmux client in the
same outer terminal (attached to a second tmux server whose pane runs the same bash), the tool
such a user would otherwise look through.

An outer tmux server (COLSxROWS) has two windows: one runs the real `tiki` UI on a background
host whose tab is a bash, the other the tmux client. Both get the same command at once (`tiki
terminal-send`, `tmux send-keys`): LINES lines of 80 characters, RATE a second. `tmux
pipe-pane -O` copies every byte each window's program writes to its terminal, before tmux reads
it; the bytes are counted from the command's start until both have printed the last line.

    python bench/outer_bytes.py [--lines 200] [--rate 20] [--cols 140 --rows 45] [--panel hidden]

(`--panel`: where the agent panel docks -- right, bottom or hidden, as `ui.toml` remembers it;
by default right at 120 columns and more, below that at the bottom. Beside a panel on the
right the UI writes every row of a scrolling tab; where the view is as wide as the terminal,
the terminal scrolls it.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import BIN, TIKI, Tmux, wait_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--rate", type=float, default=20.0, help="lines a second")
    parser.add_argument("--cols", type=int, default=140)
    parser.add_argument("--rows", type=int, default=45)
    parser.add_argument("--panel", choices=("right", "bottom", "hidden"), help="where the agent panel docks")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkob-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX"))}
    env.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"),
               PATH=f"{BIN}:{env.get('PATH', '')}")
    if args.panel:
        (work / "c").mkdir()
        (work / "c" / "ui.toml").write_text(f'panel = "{args.panel}"\n')
    (work / "ws.toml").write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    exports = " ".join(f"{k}='{v}'" for k, v in env.items() if k.startswith("TIKI_"))
    outer = Tmux(cols=args.cols, rows=args.rows, name=f"tkob{os.getpid()}")
    inner = Tmux(cols=args.cols, rows=args.rows - 1, name=f"tkobi{os.getpid()}")  # (the client's status line)
    try:
        outer.run("rename-window", "-t", "b", "tiki")
        outer.run("new-window", "-d", "-n", "tmux", "bash --norc --noprofile")
        outer.run("send-keys", "-t", "tiki", f"cd {work}; {exports} {TIKI} --workspace {work / 'ws.toml'}", "Enter")
        outer.run("send-keys", "-t", "tmux", f"TMUX= tmux -L {inner.name} attach", "Enter")
        wait_for(lambda: "? help" in outer.run("capture-pane", "-p", "-t", "tiki"), 30)
        wait_for(lambda: "bash" in outer.run("capture-pane", "-p", "-t", "tmux") or
                 "$" in outer.run("capture-pane", "-p", "-t", "tmux"), 10)
        time.sleep(1.0)  # (both idle)
        for window in ("tiki", "tmux"):
            outer.run("pipe-pane", "-O", "-t", window, f"cat > '{work / window}.bytes'")
        text = "x" * 60
        command = (f'for i in $(seq 1 {args.lines}); do printf "line %5d: {text} end\\n" $i; '
                   f'sleep {1 / args.rate:.4f}; done; echo STREAM-$((6*7))-DONE')
        subprocess.run([TIKI, "terminal-send", "sh", command], env=env, capture_output=True, check=True)
        inner.run("send-keys", "-t", "b", command, "Enter")
        wait_for(lambda: all("STREAM-42-DONE" in outer.run("capture-pane", "-p", "-t", w) for w in ("tiki", "tmux")),
                 args.lines / args.rate + 30)
        time.sleep(0.5)
        for window in ("tiki", "tmux"):
            outer.run("pipe-pane", "-t", window)
        sizes = {window: (work / f"{window}.bytes").stat().st_size for window in ("tiki", "tmux")}
        printed = args.lines * 80
        where = f", the panel {args.panel}" if args.panel else ""
        print(f"{args.lines} lines of 80 characters, {args.rate:g} a second, in a {args.cols}x{args.rows} outer "
              f"terminal{where}")
        print(f"  tiki UI      {sizes['tiki']:>9,} bytes  ({sizes['tiki'] / printed:.1f} per byte printed)")
        print(f"  tmux client  {sizes['tmux']:>9,} bytes  ({sizes['tmux'] / printed:.1f} per byte printed)")
        print(f"  tiki / tmux: {sizes['tiki'] / max(1, sizes['tmux']):.1f}x the bytes (no target)")
    finally:
        subprocess.run([TIKI, "shutdown"], env=env, capture_output=True)
        inner.close()
        outer.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
