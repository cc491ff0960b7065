"""A stand-in that draws one captured screen and stays: for the agent-state field tests.

    agent_field_screen.py FILE [--title TITLE] [--exit-on-key]

Prints FILE's rows (text, as the real program left them) with the cursor hidden, as the real
program's dialogs have it, sets the title when given, then sleeps until killed; with
--exit-on-key, clears the screen and exits 0 at the first key, as Claude's double Ctrl+C does.
"""

from __future__ import annotations

import sys
import termios
import time
import tty


def main(argv: list[str]) -> None:
    path, title = argv[0], argv[argv.index("--title") + 1] if "--title" in argv else ""
    with open(path, encoding="utf-8") as source:
        rows = source.read().split("\n")
    out = sys.stdout
    if title:
        out.write(f"\x1b]0;{title}\x07")
    out.write("\x1b[?25l\x1b[H\x1b[2J" + "\r\n".join(rows))
    out.flush()
    if "--exit-on-key" in argv:
        tty.setraw(0, termios.TCSANOW)
        sys.stdin.buffer.raw.read(1)  # type: ignore[attr-defined]
        out.write("\x1b[2J\x1b[H\x1b[?25h")
        out.flush()
        return
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1:])
