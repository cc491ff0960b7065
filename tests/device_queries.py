"""A program that probes its terminal as Claude Code, neovim and shells do: each query in
raw mode, the reply read with a timeout, printed as `name=<hex or none>` (tests only)."""

import os
import select
import sys
import termios
import time
import tty

QUERIES = {"DA1": b"\x1b[c", "DA2": b"\x1b[>0c", "DSR5": b"\x1b[5n", "DSR6": b"\x1b[6n", "XTVERSION": b"\x1b[>0q", "SIZE": b"\x1b[18t"}


def ask(fd: int, query: bytes) -> bytes:
    os.write(1, query)
    reply, end = b"", time.monotonic() + 2.0
    while time.monotonic() < end and select.select([fd], [], [], max(0.0, end - time.monotonic()))[0]:
        reply += os.read(fd, 1024)
        end = min(end, time.monotonic() + 0.1)  # a reply comes in one piece, or a few close together
    return reply


fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
try:
    replies = {name: ask(fd, query) for name, query in QUERIES.items()}
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
size = os.get_terminal_size(fd)  # what the kernel says, for the text area's answer
print("\r\n".join(f"{name}={reply.hex() or 'none'}" for name, reply in replies.items()),
      f"KERNEL={size.lines};{size.columns}", "QUERIES DONE", sep="\r\n", end="\r\n")
time.sleep(600)
