"""A stand-in for an agent CLI that animates while you type into it (Claude Code's spinner over
its input box, Codex's "Working" timer): in raw mode, a status line redrawn every TICK seconds
on row 1, the keys typed echoed on row 6 -- each redraw and each echo its own write, as Ink
writes them. Ctrl+U clears the input, Ctrl+C ends it."""

from __future__ import annotations

import itertools
import os
import select
import sys
import termios
import time
import tty

TICK = float(sys.argv[1]) if len(sys.argv) > 1 else 0.05


def main() -> None:
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    write = sys.stdout.write
    write("\x1b[2J\x1b[H")
    typed = ""
    spinner = itertools.cycle("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
    tick = time.monotonic()
    try:
        while True:
            if time.monotonic() >= tick:
                write(f"\x1b7\x1b[1;1H\x1b[2K{next(spinner)} Working ({time.monotonic():.2f})\x1b8")
                sys.stdout.flush()
                tick += TICK
            ready, _, _ = select.select([fd], [], [], max(0.0, tick - time.monotonic()))
            if not ready:
                continue
            data = os.read(fd, 1024).decode(errors="replace")
            if "\x03" in data:
                return
            typed = "" if "\x15" in data else typed + data
            write(f"\x1b[6;1H\x1b[2K> {typed}")
            sys.stdout.flush()
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    main()
