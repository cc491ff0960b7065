"""A stand-in for Claude Code 2.1.197 in a terminal: its screens, redrawn as it redraws them.

The text, colours, title and cursor handling are those captured from the real program
(tests/screens/claude_*.txt; assets/agents/README.md). It draws on the main screen with the
cursor hidden, a title of "✳ Claude Code" at rest and a braille spinner in the title while it
works, bracketed paste on. A turn: the prompt you type (Enter submits) → working (spinner
glyph, gerund, elapsed seconds and token count, updated ten times a second) → the permission
prompt "Do you want to proceed?" with numbered choices, which waits for a key (1/Enter yes,
3/Esc no) → working again → the answer and "✻ Worked for Ns" at the input box. Ctrl-C twice
or Ctrl-D at an empty prompt exits. `--speed F` scales every delay (tests use a small F);
`--notify` also prints the OSC 9 notification Claude sends to terminals it knows;
`--drop-enters N` ignores the first N Enters that would submit a prompt (an Enter swallowed,
as one glued to a paste can be by a real TUI).
"""

from __future__ import annotations

import argparse
import os
import select
import termios
import time
import tty

ORANGE, GREY, RULE_GREY, RED = "\x1b[38;2;215;119;87m", "\x1b[38;2;153;153;153m", "\x1b[38;2;136;136;136m", "\x1b[38;2;199;91;78m"
RESET = "\x1b[39m"
GLYPHS = "·✢✳✶✻✽"  # the spinner in front of the gerund
TITLE_SPIN = "⠂⠐"  # the title's spinner while a turn runs
WORDS = ["Canoodling", "Booping", "Envisioning"]


def out(text: str) -> None:
    os.write(1, text.encode())


class Claude:
    def __init__(self, cols: int, rows: int, speed: float, notify: bool) -> None:
        self.cols, self.rows, self.speed, self.notify = cols, rows, speed, notify
        self.transcript: list[str] = []
        self.typed = ""
        self.footer = "? for shortcuts · ← for agents"

    def frame(self, middle: list[str]) -> None:
        """Redraw everything below the welcome box, as Ink redraws its dynamic region; the
        transcript's older lines give way (Claude scrolls them into the terminal's history)."""
        room = max(0, self.rows - 12 - len(middle))
        rows = (self.transcript[-room:] if room else []) + middle
        out("\x1b[13;1H\x1b[J" + "\r\n".join(rows))

    def idle(self) -> None:
        self.title("✳ Claude Code")
        rule = f"{RULE_GREY}{'─' * self.cols}{RESET}"
        self.frame(["", rule, f"❯\xa0{self.typed}\x1b[7m \x1b[0m", rule, f"  {GREY}{self.footer}{RESET}"])

    def working(self, seconds: float, started: float, word: str, tokens: int) -> None:
        rule = f"{RULE_GREY}{'─' * self.cols}{RESET}"
        end = time.monotonic() + seconds * self.speed
        tick = 0
        while time.monotonic() < end:
            elapsed = int(time.monotonic() - started)
            counter = f" ({elapsed}s · ↓ {tokens + tick} tokens)" if elapsed >= 1 else ""
            self.title(f"{TITLE_SPIN[tick % 2]} Claude Code")
            self.frame(["", f"{RED}{GLYPHS[tick % len(GLYPHS)]}{RESET} {RED}{word}…{counter}{RESET}", "", rule,
                        "❯\xa0\x1b[7m \x1b[0m", rule, f"  {GREY}esc to interrupt · ← for agents{RESET}"])
            tick += 1
            time.sleep(0.1)

    def permission(self) -> bytes:
        self.title("✳ Claude Code")
        rule = f"{RULE_GREY}{'─' * self.cols}{RESET}"
        self.frame(["● Bash(mkdir demo-dir)", "  ⎿  Waiting…", "", rule, " Bash command", "",
                    "   mkdir demo-dir", f"   {GREY}Create a demo directory{RESET}", "",
                    " Do you want to proceed?", " ❯ 1. Yes",
                    "   2. Yes, and always allow access to demo/ from this project", "   3. No", "",
                    f" {GREY}Esc to cancel · Tab to amend · ctrl+e to explain{RESET}"])
        if self.notify:
            out("\x1b]9;Claude needs your permission\x07")
        return read_key()

    def title(self, text: str) -> None:
        out(f"\x1b]0;{text}\x07")

    def turn(self, prompt: str, number: int) -> None:
        self.transcript += [f"\x1b[48;2;55;55;55m❯\xa0{prompt}\x1b[49m", ""]
        started = time.monotonic()
        self.working(3.0, started, WORDS[number % len(WORDS)], 0)
        answer = self.permission()
        if answer in (b"3", b"\x1b"):
            self.transcript += ["● Bash(mkdir demo-dir)", "  ⎿  Interrupted · What should Claude do instead?", ""]
            return
        self.transcript += ["● Bash(mkdir demo-dir)", "  ⎿  Done", ""]
        self.working(2.0, started, WORDS[number % len(WORDS)], 30)
        took = int(time.monotonic() - started)
        self.transcript += ["● Done: the directory is there.", "", f"{GREY}✻ Worked for {took}s{RESET}", ""]


def read_key() -> bytes:
    while True:
        ready, _, _ = select.select([0], [], [], 0.5)
        if ready:
            return os.read(0, 64)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--notify", action="store_true")
    parser.add_argument("--drop-enters", type=int, default=0)
    args = parser.parse_args()
    drops = args.drop_enters
    cols, rows = os.get_terminal_size(1)
    old = termios.tcgetattr(0)
    tty.setraw(0)
    claude = Claude(cols, rows, args.speed, args.notify)
    try:
        out("\x1b[?25l\x1b[?2004h\x1b]0;✳ Claude Code\x07\x1b[H\x1b[2J")
        box = cols - 2
        out(f"{ORANGE}╭─── Claude Code {GREY}v2.1.197{ORANGE} {'─' * (box - 25)}╮{RESET}\r\n")
        for text in ["", "Welcome back!", "", "▐▛███▜▌", "▝▜█████▛▘", "▘▘ ▝▝", "",
                     f"{GREY}Opus 4.8 (1M context) · API Usage Billing{RESET}", f"{GREY}{os.getcwd()[-40:]}{RESET}"]:
            width = len(text) - (len(GREY) + len(RESET) if text.startswith(GREY) else 0)
            pad = max(0, box - width)
            out(f"{ORANGE}│{RESET}{' ' * (pad // 2)}{text}{' ' * (pad - pad // 2)}{ORANGE}│{RESET}\r\n")
        out(f"{ORANGE}╰{'─' * box}╯{RESET}\r\n")
        time.sleep(0.3 * args.speed)
        turns, interrupts = 0, 0
        claude.idle()
        while True:
            key = read_key().replace(b"\x1b[200~", b"").replace(b"\x1b[201~", b"")
            for char in key.decode(errors="replace"):
                if char == "\x03":
                    interrupts += 1
                    if interrupts >= 2:
                        return
                    continue
                interrupts = 0
                if char == "\x04" and not claude.typed:
                    return
                if char in "\r\n" and claude.typed.strip() and drops > 0:
                    drops -= 1  # swallowed: the text stays in the input box
                elif char in "\r\n" and claude.typed.strip():
                    prompt, claude.typed = claude.typed, ""
                    claude.turn(prompt, turns)
                    turns += 1
                elif char in "\x7f\b":
                    claude.typed = claude.typed[:-1]
                elif char >= " ":
                    claude.typed += char
            claude.footer = "Press Ctrl-C again to exit" if interrupts else "? for shortcuts · ← for agents"
            claude.idle()
    finally:
        out("\r\n\x1b[?25h\x1b[?2004l\r\nResume this session with:\r\nclaude --resume 00000000-0000-0000-0000-000000000000\r\n")
        termios.tcsetattr(0, termios.TCSADRAIN, old)


if __name__ == "__main__":
    main()
