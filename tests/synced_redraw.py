"""A stand-in for a program that redraws its whole screen inside synchronized-output brackets
(DEC mode 2026: `CSI ? 2026 h` ... `CSI ? 2026 l`), as Claude Code, neovim and other TUIs do
where the terminal says it has the mode: it asks first (DECRQM, `CSI ? 2026 $ p`) and notes the
answer, then draws FRAMES screens of ten rows, each in two writes PAUSE s apart -- the first
half, then the second -- so a frame taken in between would show half a screen."""

from __future__ import annotations

import os
import re
import select
import sys
import termios
import time
import tty

FRAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 12
PAUSE = float(sys.argv[2]) if len(sys.argv) > 2 else 0.04


def ask_sync(fd: int) -> str:
    """The terminal's DECRQM answer for mode 2026, or "none" after 0.5 s."""
    os.write(1, b"\x1b[?2026$p")
    answer, deadline = b"", time.monotonic() + 0.5
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], deadline - time.monotonic())
        if ready:
            answer += os.read(fd, 100)
            match = re.search(rb"\x1b\[\?2026;(\d)\$y", answer)
            if match:
                return match.group(1).decode()
    return "none"


def main() -> None:
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    try:
        answer = ask_sync(fd)
        for frame in range(FRAMES):
            rows = [f"\x1b[{row + 1};1Hframe {frame} row {row}" for row in range(10)]
            os.write(1, ("\x1b[?2026h\x1b[2J" + "".join(rows[:5])).encode())
            time.sleep(PAUSE)
            os.write(1, ("".join(rows[5:]) + "\x1b[?2026l").encode())
            time.sleep(PAUSE)
        os.write(1, f"\x1b[12;1Hsync answer {answer}; done\r\n".encode())
        os.read(fd, 1)  # until a key
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    main()
