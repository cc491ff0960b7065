"""A stand-in for aider 0.86.2 in a terminal: a line-mode chat with a spinner and a question.

The text is that captured from the real program (tests/screens/aider_*.txt) and the forms of its
prompt and questions are those of aider's io.py (assets/agents/README.md): a "─" rule and the
"> " prompt (bracketed paste on while it reads), then for each message "░█  Waiting for
<model>" bouncing with the cursor hidden, the answer streamed line by line, a "Tokens: …" line,
and "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ", which waits for a line. Ctrl-D
at the prompt exits. `--speed F` scales every delay; `--notifications` rings the bell when it
is ready for input again, as aider's --notifications does.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

MODEL = "openai/gpt-4o"


def out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def spinner(seconds: float) -> None:
    """aider's WaitingSpinner: a two-cell bar bouncing left of the text, redrawn with \\r."""
    out("\x1b[?25l")
    end, position, step = time.monotonic() + seconds, 0, 1
    while time.monotonic() < end:
        bar = " " * position + "░█" + " " * (9 - position)
        out(f"\r{bar}  Waiting for {MODEL}")
        position += step
        if position in (0, 9):
            step = -step
        time.sleep(0.15)
    out("\r" + " " * (len(MODEL) + 25) + "\r\x1b[?25h")


def ask() -> str:
    out("\x1b[?2004h")
    answer = sys.stdin.readline()
    out("\x1b[?2004l")
    return answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--notifications", action="store_true")
    args = parser.parse_args()
    cols = os.get_terminal_size(1).columns
    out(f"Aider v0.86.2\nMain model: {MODEL} with diff edit format\nWeak model: gpt-4o-mini\n"
        "Git repo: .git with 0 files\nRepo-map: using 4096 tokens, auto refresh\n")
    while True:
        out("\x1b[2m" + "─" * cols + "\x1b[0m\n")
        if args.notifications:
            out("\x07")
        out("> ")
        line = ask()
        if not line:
            break
        if not line.strip():
            continue
        spinner(2.0 * args.speed)
        for text in ["I will create the directory.", "", "mkdir demo-dir", ""]:
            out(text + "\n")
            time.sleep(0.2 * args.speed)
        out("Tokens: 2.4k sent, 15 received. Cost: $0.0062 message, $0.0062 session.\n")
        out("\x1b[1mmkdir demo-dir\x1b[0m\n")
        if args.notifications:
            out("\x07")
        out("Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ")
        answer = ask().strip().lower()
        if answer in ("", "y", "yes"):
            out("Running mkdir demo-dir\n")
            time.sleep(0.3 * args.speed)


if __name__ == "__main__":
    main()
