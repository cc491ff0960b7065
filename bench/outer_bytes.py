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
                                [--outer xterm] [--smaller 100x30] [--beside] [--claude SPEED]

(`--panel`: where the agent panel docks -- right, bottom or hidden, as `ui.toml` remembers it;
by default right at 120 columns and more, below that at the bottom. Where the view is as wide
as the terminal, the terminal scrolls it; beside a panel on the right only a terminal with left
and right margins can, which tmux is not.) `--outer xterm`: the two are real xterms of that
size on a virtual X display (Xvfb) instead of two windows of an outer tmux, and the bytes are
what each xterm logs it received (`-l`): xterm has the margins. `--smaller COLSxROWS`: the
bytes of a second, smaller UI (and tmux client) watching the same tab, while the larger one is
the one used last, so the tab keeps its size and the smaller shows it panned (tmux's
`window-size latest`; outer tmux only). `--beside`: the tmux client's pane is as wide and high as
the tiki tab, with a second pane (an idle shell) beside it -- the like-for-like reference for
a view beside the agent panel: the pane a user would otherwise run the CLI in, next to another.
`--claude SPEED`: instead of lines, one turn of the Claude Code stand-in (the real program's
screens and redraws: tests/standins/claude_standin.py, delays scaled by SPEED) -- ten ticks a
second of its spinner and counter, for which it draws its whole input area again, 3 x SPEED
seconds, the permission question (answered 1), 2 x SPEED more -- an agent at work, watched.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Protocol

from common import BIN, TIKI, Tmux, wait_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--rate", type=float, default=20.0, help="lines a second")
    parser.add_argument("--cols", type=int, default=140)
    parser.add_argument("--rows", type=int, default=45)
    parser.add_argument("--panel", choices=("right", "bottom", "hidden"), help="where the agent panel docks")
    parser.add_argument("--outer", choices=("tmux", "xterm"), default="tmux", help="the outer terminal")
    parser.add_argument("--smaller", metavar="COLSxROWS", help="count a second, smaller UI's bytes (outer tmux)")
    parser.add_argument("--beside", action="store_true",
                        help="the tmux reference's pane as large as the tab, beside a second pane")
    parser.add_argument("--claude", type=float, metavar="SPEED",
                        help="one turn of the Claude Code stand-in, its delays scaled by SPEED, instead of lines")
    args = parser.parse_args()
    if args.smaller and args.outer != "tmux":
        parser.error("--smaller needs --outer tmux")
    work = Path(tempfile.mkdtemp(prefix="tkob-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX"))}
    env.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"),
               PATH=f"{BIN}:{env.get('PATH', '')}")
    if args.panel:
        (work / "c").mkdir()
        (work / "c" / "ui.toml").write_text(f'panel = "{args.panel}"\n')
    (work / "ws.toml").write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    exports = " ".join(f"{k}='{v}'" for k, v in env.items() if k.startswith("TIKI_"))
    inner = Tmux(cols=args.cols, rows=args.rows - 1, name=f"tkobi{os.getpid()}")  # (the client's status line)
    windows = {"tiki": f"cd {work}; {exports} {TIKI} --workspace {work / 'ws.toml'}",
               "tmux": f"TMUX= tmux -L {inner.name} attach"}
    outer: Outer = XTerms(args, work, windows) if args.outer == "xterm" else TmuxWindows(args, windows)
    try:
        wait_for(lambda: "? help" in outer.screen("tiki"), 30)
        wait_for(lambda: "bash" in outer.screen("tmux") or "$" in outer.screen("tmux"), 10)
        if args.smaller:
            assert isinstance(outer, TmuxWindows)
            windows = outer.smaller(args.smaller, windows)  # (counted from now on: the smaller two)
        if args.beside:
            beside_the_tab(inner, env)
        time.sleep(1.0)  # (both idle)
        outer.count()
        printed = 0
        if args.claude:
            took = claude_turn(args.claude, env, inner, outer, list(windows))
        else:
            text = "x" * 60
            command = (f'for i in $(seq 1 {args.lines}); do printf "line %5d: {text} end\\n" $i; '
                       f'sleep {1 / args.rate:.4f}; done; echo STREAM-$((6*7))-DONE')
            subprocess.run([TIKI, "terminal-send", "sh", command], env=env, capture_output=True, check=True)
            inner.run("send-keys", "-t", "b", command, "Enter")
            wait_for(lambda: all("STREAM-42-DONE" in outer.screen(w) for w in windows), args.lines / args.rate + 30)
            printed = args.lines * 80
        time.sleep(0.5)
        sizes = outer.counted()
        where = f", the panel {args.panel}" if args.panel else ""
        what = (f"one turn of the Claude Code stand-in (speed {args.claude:g}: {5 * args.claude:g} s of spinner)"
                if args.claude else f"{args.lines} lines of 80 characters, {args.rate:g} a second")
        print(f"{what}, in a {args.cols}x{args.rows} outer {args.outer}{where}")
        if args.smaller:
            print(f"  the second, smaller ({args.smaller}) UI and tmux client, the larger used last:")
        if args.beside:
            print(f"  the tmux client's pane {inner.run('display-message', '-p', '-t', 'b', '#{pane_width}x#{pane_height}').strip()}"
                  ", beside a second pane")
        tiki_bytes, tmux_bytes = (next(v for k, v in sizes.items() if k.startswith(side)) for side in ("tiki", "tmux"))
        for label, count in (("tiki UI    ", tiki_bytes), ("tmux client", tmux_bytes)):
            per = f"{count / printed:.1f} per byte printed" if printed else f"{count / took:,.0f} a second of the turn"
            print(f"  {label}  {count:>9,} bytes  ({per})")
        print(f"  tiki / tmux: {tiki_bytes / max(1, tmux_bytes):.1f}x the bytes (no target)")
    finally:
        subprocess.run([TIKI, "shutdown"], env=env, capture_output=True)
        inner.close()
        outer.close()
        shutil.rmtree(work, ignore_errors=True)


def claude_turn(speed: float, env: dict[str, str], inner: Tmux, outer: Outer, windows: list[str]) -> float:
    """One turn of the Claude Code stand-in in the tab and in the pane, each typed into as it
    asks; how long the turn took (from its prompt's Enter to its last screen in both)."""
    standin = Path(__file__).resolve().parent.parent / "tests" / "standins" / "claude_standin.py"
    command = f"clear; python3 {standin} --speed {speed:g}"

    def both(keys: str, enter: bool = False) -> None:
        # (--now: the stand-in is an agent waiting for its user, which `terminal-send` would queue for)
        typed = [TIKI, "terminal-send", "sh", "--now", "--literal", keys, *([] if enter else ["--no-enter"])]
        subprocess.run(typed, env=env, capture_output=True, check=True)
        inner.run("send-keys", "-t", "b", *([keys, "Enter"] if enter else ["-l", keys]))

    outer.counted()  # (the stand-in's start is not the turn)
    both(command, enter=True)
    wait_for(lambda: all("? for shortcuts" in outer.screen(w) for w in windows), 20)
    time.sleep(0.5)
    outer.count()
    both("make a demo directory")
    time.sleep(0.3)
    started = time.monotonic()
    subprocess.run([TIKI, "terminal-key", "sh", "enter"], env=env, capture_output=True, check=True)
    inner.run("send-keys", "-t", "b", "Enter")
    wait_for(lambda: all("Do you want to proceed?" in outer.screen(w) for w in windows), 5 * speed + 20)
    both("1")
    wait_for(lambda: all("Worked for" in outer.screen(w) for w in windows), 5 * speed + 20)
    return time.monotonic() - started


def beside_the_tab(inner: Tmux, env: dict[str, str]) -> None:
    """Split the reference's window so its pane takes the tab's size, an idle shell beside it."""
    cells = subprocess.run([TIKI, "terminal-read", "sh", "--cells", "--json"], env=env, capture_output=True,
                           text=True, check=True)
    size = json.loads(cells.stdout)
    inner.run("split-window", "-h", "-d", "-t", "b", "bash --norc --noprofile")
    inner.run("resize-pane", "-t", "b.0", "-x", str(size["cols"]), "-y", str(size["rows"]))
    time.sleep(0.5)


class Outer(Protocol):
    def screen(self, window: str) -> str: ...
    def count(self) -> None: ...  # from now
    def counted(self) -> dict[str, int]: ...  # bytes each window's terminal received since `count`
    def close(self) -> None: ...


class TmuxWindows:
    """Two windows of an outer tmux server; `pipe-pane -O` copies what each program writes."""

    def __init__(self, args: argparse.Namespace, windows: dict[str, str]) -> None:
        self.tmux = Tmux(cols=args.cols, rows=args.rows, name=f"tkob{os.getpid()}")
        self.files = {window: Path(tempfile.mkdtemp(prefix="tkobp-")) / "bytes" for window in windows}
        self.tmux.run("rename-window", "-t", "b", "tiki")
        self.tmux.run("new-window", "-d", "-n", "tmux", "bash --norc --noprofile")
        for window, command in windows.items():
            self.tmux.run("send-keys", "-t", window, command, "Enter")

    def screen(self, window: str) -> str:
        return self.tmux.run("capture-pane", "-p", "-t", window)

    def smaller(self, size: str, windows: dict[str, str]) -> dict[str, str]:
        """Each of `windows` again in a window of `size`; then the first ones are used last
        (a key in each: the tab and the inner window take their size). The new windows."""
        cols, rows = size.lower().split("x")
        smaller = {f"{window}-small": command for window, command in windows.items()}
        for window, command in smaller.items():
            self.tmux.run("new-window", "-d", "-n", window, "bash --norc --noprofile")
            self.tmux.run("set-option", "-w", "-t", window, "window-size", "manual")
            self.tmux.run("resize-window", "-t", window, "-x", cols, "-y", rows)
            time.sleep(0.5)  # (the shell up)
            self.tmux.run("send-keys", "-t", window, command, "Enter")
        wait_for(lambda: "? help" in self.screen("tiki-small"), 30)
        wait_for(lambda: "$" in self.screen("tmux-small") or "bash" in self.screen("tmux-small"), 10)
        time.sleep(1.0)
        for window in windows:
            self.tmux.run("send-keys", "-t", window, "Enter")
        for path in self.files.values():
            shutil.rmtree(path.parent, ignore_errors=True)
        self.files = {window: Path(tempfile.mkdtemp(prefix="tkobp-")) / "bytes" for window in smaller}
        return smaller

    def count(self) -> None:
        for window, path in self.files.items():
            self.tmux.run("pipe-pane", "-O", "-t", window, f"cat > '{path}'")

    def counted(self) -> dict[str, int]:
        for window in self.files:
            self.tmux.run("pipe-pane", "-t", window)
        return {window: path.stat().st_size for window, path in self.files.items()}

    def close(self) -> None:
        self.tmux.close()
        for path in self.files.values():
            shutil.rmtree(path.parent, ignore_errors=True)


class XTerms:
    """Two real xterms on a virtual X display, each logging what it receives."""

    def __init__(self, args: argparse.Namespace, work: Path, windows: dict[str, str]) -> None:
        read, write = os.pipe()
        self.x = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "3000x2000x24",
                                   "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as displayfd:
            # (without COLUMNS and LINES, which Textual would take over the terminal's size)
            self.env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
                        "DISPLAY": f":{displayfd.readline().strip()}"}
        self.logs = {window: work / f"{window}.xterm.log" for window in windows}
        self.terms = [subprocess.Popen(["xterm", "-l", "-lf", str(self.logs[window]), "-geometry",
                                        f"{args.cols}x{args.rows}", "-e", "bash", "--norc", "--noprofile", "-c",
                                        command], env=self.env, stderr=subprocess.DEVNULL)
                      for window, command in windows.items()]
        self.start: dict[str, int] = {}

    def screen(self, window: str) -> str:
        # (what the program in it last wrote, as plain text: enough to find the words looked for)
        if not self.logs[window].exists():
            return ""
        return self.logs[window].read_bytes()[-8192:].decode(errors="replace")

    def count(self) -> None:
        self.start = {window: log.stat().st_size for window, log in self.logs.items()}

    def counted(self) -> dict[str, int]:
        return {window: log.stat().st_size - self.start[window] for window, log in self.logs.items()}

    def close(self) -> None:
        for process in (*self.terms, self.x):
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()
