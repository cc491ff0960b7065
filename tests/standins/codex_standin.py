"""A stand-in for OpenAI Codex CLI 0.171.0 in a terminal: its screens, redrawn as it redraws them.

The text, title and modes are those captured from the real program (tests/screens/codex_*.txt;
assets/agents/README.md): the alternate screen, a visible cursor in the composer ("› Ask Codex
to do anything" over "← for agents · ? for shortcuts"), the folder's name as the title. A turn:
type a prompt, Enter → "• Working (Ns • esc to interrupt)" with a braille spinner in the title
("⠙ <prompt> | <folder>") → with `--approve`, the approval overlay "Would you like to run the
following command?" (title "[ ! ] Action Required | …"), which waits for y/Enter or n/Esc →
working again → "• Done: …" and "Worked for Ns • HH:MM" above the composer. Ctrl-C twice or
Ctrl-D exits. `--speed F` scales every delay. Like the real one it reads keys while it works
(they go into the composer); `--log FILE` appends a JSON line for every input it reads, with
when it arrived (a thread of its own reads the terminal, as the real one's event stream does,
so drawing a screen never delays the stamp) and what it was doing then (idle, working,
approval), so a test can tell when text arrived.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import termios
import threading
import time
import tty

DIM, CYAN, BOLD, RESET = "\x1b[2m", "\x1b[36m", "\x1b[1m", "\x1b[0m"
SPIN = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def out(text: str) -> None:
    os.write(1, text.encode())


LOG: str | None = None
INPUT: "queue.Queue[tuple[float, bytes]]" = queue.Queue()  # (when it arrived, the bytes of one read)


def read_input() -> None:
    while data := os.read(0, 64):
        INPUT.put((time.time(), data))


def take(state: str, timeout: float) -> bytes | None:
    """The next read's bytes, logged with when they arrived and `state`; None after `timeout` s."""
    try:
        at, data = INPUT.get(timeout=timeout)
    except queue.Empty:
        return None
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"at": at, "state": state, "text": data.decode(errors="replace")}) + "\n")
    return data


def read_key(state: str = "idle") -> bytes:
    while (data := take(state, 0.5)) is None:
        pass
    return data


class Codex:
    def __init__(self, rows: int, speed: float) -> None:
        self.rows, self.speed = rows, speed
        self.folder = os.path.basename(os.getcwd()) or "/"
        self.transcript: list[str] = []
        self.typed = ""

    def draw(self, bottom: list[str], cursor_on_composer: bool = True) -> None:
        header = ["", f"  >_ {BOLD}OpenAI Codex{RESET} (v0.171.0)", f"     {DIM}{os.getcwd()[-60:]}{RESET}", "",
                  "  To get started, describe a task or try one of these commands:", ""]
        room = self.rows - len(header) - len(bottom)
        middle = self.transcript[-room:] if room > 0 else []
        rows = header + middle + [""] * max(0, room - len(middle)) + bottom
        out("\x1b[H" + "\r\n".join(f"{row}\x1b[K" for row in rows[: self.rows]))
        if cursor_on_composer:
            composer = next(i for i, row in enumerate(rows) if row.startswith("› "))
            out(f"\x1b[{composer + 1};{3 + len(self.typed) if self.typed else 3}H\x1b[?25h")

    def composer(self) -> list[str]:
        text = self.typed or f"{DIM}Ask Codex to do anything{RESET}"
        return [f"› {text}", "", f"  {DIM}gpt-5-codex default · {os.getcwd()[-40:]}{RESET}",
                f"  {DIM}← for agents · ? for shortcuts{RESET}"]

    def idle(self) -> None:
        out(f"\x1b]0;{self.folder}\x07")
        self.draw(self.composer())

    def working(self, seconds: float, started: float, task: str) -> None:
        end = time.monotonic() + seconds * self.speed
        tick = 0
        while time.monotonic() < end:
            out(f"\x1b]0;{SPIN[tick % len(SPIN)]} {task} | {self.folder}\x07")
            elapsed = int(time.monotonic() - started)
            self.draw([f"• {BOLD}Working{RESET} {DIM}({elapsed}s • esc to interrupt){RESET}", ""] + self.composer())
            tick += 1
            data = take("working", 0.1)
            if data is not None:  # typing while it works goes into the composer
                data = data.replace(b"\x1b[200~", b"").replace(b"\x1b[201~", b"")
                self.typed += "".join(c for c in data.decode(errors="replace") if c >= " ")

    def approval(self, task: str) -> bytes:
        blink = 0
        lines = ["", "  Would you like to run the following command?", "", "  Environment: local", "",
                 "  $ mkdir demo-dir", "", "",
                 f"{CYAN}› 1. Yes, proceed {DIM}(y){RESET}",
                 "  2. Yes, and don't ask again for commands that start with `mkdir demo-dir` (p)",
                 "  3. No, and tell Codex what to do differently (esc)", "",
                 f"  {DIM}Press enter to confirm or esc to cancel{RESET}"]
        out("\x1b[?25l")
        self.draw(lines, cursor_on_composer=False)
        while True:  # the real title blinks between "[ ! ]" and "[ . ]" until an answer comes
            out(f"\x1b]0;[ {'!' if blink % 2 == 0 else '.'} ] Action Required | {task} | {self.folder}\x07")
            blink += 1
            data = take("approval", 0.5)
            if data is not None:
                return data

    def turn(self, task: str, approve: bool) -> None:
        self.transcript += [f"› {task}", ""]
        started = time.monotonic()
        self.working(2.5, started, task)
        if approve:
            answer = self.approval(task)
            if answer in (b"n", b"\x1b"):
                self.transcript += ["✗ You canceled the request to run mkdir demo-dir", ""]
                return
            self.transcript += ["✔ You approved codex to run mkdir demo-dir this time", "",
                                "• Ran mkdir demo-dir", "  └ (no output)", ""]
            self.working(1.5, started, task)
        took = int(time.monotonic() - started)
        self.transcript += ["• Done: the directory is there.", "",
                            f"  {DIM}Worked for {took}s • {time.strftime('%H:%M')}{RESET}", ""]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--approve", action="store_true")
    parser.add_argument("--log")
    args = parser.parse_args()
    global LOG
    LOG = args.log
    old = termios.tcgetattr(0)
    tty.setraw(0)
    codex = Codex(os.get_terminal_size(1).lines, args.speed)
    threading.Thread(target=read_input, daemon=True).start()
    try:
        out("\x1b[?1049h\x1b[?2004h\x1b[H\x1b[2J")
        time.sleep(0.2 * args.speed)
        codex.idle()
        interrupts = 0
        while True:
            key = read_key().replace(b"\x1b[200~", b"").replace(b"\x1b[201~", b"")
            for char in key.decode(errors="replace"):
                if char == "\x03":
                    interrupts += 1
                    if interrupts >= 2:
                        return
                    continue
                interrupts = 0
                if char == "\x04" and not codex.typed:
                    return
                if char in "\r\n" and codex.typed.strip():
                    prompt, codex.typed = codex.typed, ""
                    codex.turn(prompt, args.approve)
                elif char in "\x7f\b":
                    codex.typed = codex.typed[:-1]
                elif char >= " ":
                    codex.typed += char
            codex.idle()
    finally:
        out("\x1b[?2004l\x1b[?25h\x1b[?1049l")
        termios.tcsetattr(0, termios.TCSADRAIN, old)


if __name__ == "__main__":
    main()
