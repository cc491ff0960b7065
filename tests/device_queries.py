"""A program that probes its terminal as Claude Code, neovim and shells do: each query in
raw mode, the reply read with a timeout, printed as `name=<hex or none>` (tests only).
`device_queries.py [NAME ...]` asks those of QUERIES (default: all but the colours), then
waits for a line (Enter) to ask them again."""

import os
import select
import sys
import termios
import time
import tty

QUERIES = {"DA1": b"\x1b[c", "DA2": b"\x1b[>0c", "DSR5": b"\x1b[5n", "DSR6": b"\x1b[6n", "XTVERSION": b"\x1b[>0q",
           "SIZE": b"\x1b[18t", "FG": b"\x1b]10;?\x1b\\", "BG": b"\x1b]11;?\x07"}
ASKED = sys.argv[1:] or [name for name in QUERIES if name not in ("FG", "BG")]


def ask(fd: int, query: bytes) -> bytes:
    os.write(1, query)
    reply, end = b"", time.monotonic() + 0.5  # (a terminal answers in milliseconds; none: the timeout)
    while time.monotonic() < end and select.select([fd], [], [], max(0.0, end - time.monotonic()))[0]:
        reply += os.read(fd, 1024)
        end = min(end, time.monotonic() + 0.1)  # a reply comes in one piece, or a few close together
    return reply


fd = sys.stdin.fileno()
for round_ in range(1, 100):
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    try:
        replies = {name: ask(fd, QUERIES[name]) for name in ASKED}
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    size = os.get_terminal_size(fd)  # what the kernel says, for the text area's answer
    print("\r\n".join(f"{name}={reply.hex() or 'none'}" for name, reply in replies.items()),
          f"KERNEL={size.lines};{size.columns}", f"QUERIES DONE {round_}", sep="\r\n", end="\r\n", flush=True)
    sys.stdin.readline()
