"""A scripted stand-in for a CLI AI, run as a peer tab's program in tests and in
`bench/coordinator_eval.py`.

It reads what is typed into it -- a line typed, or a bracketed paste of any number of lines as
one message, as Claude Code and Codex take it --, runs the acknowledgement command the
first-contact header tells it to, and answers through bot-chat, as Claude Code would when it
follows the briefing. It prints what it does. Personas say different things:

- `claude` (default): answers "what is A times B" (6 times 7 is "42, obviously (six sevens)",
  commas and all); anything else gets "I can only multiply".
- `codex`: takes notes: answers every message with "noted: <the message>".
- `silent`: acknowledges the handshake, then never answers.

`--delay S` waits S seconds before answering, as a real AI thinks. With `--spin` it shows what
Claude Code shows meanwhile -- a spinner line (`✻ Pondering… (2s · esc to interrupt)`, redrawn
ten times a second) and the title `⠂ Claude Code` until the answer is sent -- and at rest the
title `✳ Claude Code` and the footer `? for shortcuts`: its tab is then Claude's, `working`
while it thinks and `idle` after. `--slow "TEXT=S"` thinks S seconds instead on a message with
TEXT in it (a long task beside quick questions). `--log FILE` appends one JSON line per answer
with the time the bot-chat call returned (the host had the reply).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import time
from typing import Iterable, Iterator

ACK = re.compile(r'`(tiki bot-chat "DONE\(handshake-ok\)" --from [\w.-]+)`')
TIMES = re.compile(r"(\d+)\s*(?:times|x|\*)\s*(\d+)", re.I)


def answer(persona: str, line: str) -> str | None:
    question = line.split("Message:", 1)[-1].strip()  # after a first-contact header, the message
    if persona == "silent" or not question:
        return None
    if persona == "codex":
        return f"noted: {question[-200:]}"
    match = TIMES.search(question)
    if not match:
        return "I can only multiply"
    a, b = int(match.group(1)), int(match.group(2))
    return "42, obviously (six sevens)" if (a, b) in ((6, 7), (7, 6)) else str(a * b)


def messages(lines: Iterable[str]) -> Iterator[str]:
    """What the user sent, one message at a time: a line typed, or a bracketed paste whole --
    Claude Code and Codex take a paste of many lines as one message ("[Pasted text #1 +2
    lines]"), sent by the Enter after it, not as one message a line."""
    paste: list[str] | None = None
    for raw in lines:
        if paste is None and "\x1b[200~" in raw:
            paste = []
        if paste is not None:
            paste.append(raw)
            if "\x1b[201~" not in raw:
                continue
            raw, paste = "".join(paste), None
        message = raw.replace("\x1b[200~", "").replace("\x1b[201~", "").strip()
        if message:
            yield message


def think(seconds: float, spin: bool) -> None:
    if not spin:
        time.sleep(seconds)
        return
    began = time.monotonic()
    sys.stdout.write("\x1b]0;\u2802 Claude Code\x07")  # the title Claude Code sets while it works
    for tick in itertools.count():
        left = seconds - (time.monotonic() - began)
        if left <= 0:
            break
        glyph = "·✢✳✶✻✽"[tick % 6]
        sys.stdout.write(f"\r\x1b[2K{glyph} Pondering… ({int(time.monotonic() - began)}s · esc to interrupt)")
        sys.stdout.flush()
        time.sleep(min(0.1, left))
    # The spinner's line goes; its title stays until the answer is sent (Claude Code calls
    # bot-chat inside its turn, and what the call prints goes on a line of its own).
    sys.stdout.write("\r\x1b[2K")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--persona", default="claude", choices=("claude", "codex", "silent"))
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--spin", action="store_true")
    parser.add_argument("--slow", action="append", default=[], metavar="TEXT=S")
    parser.add_argument("--log")
    opts = parser.parse_args()
    sys.stdout.write("\x1b[?2004h")  # like real AI TUIs: ask for bracketed paste
    if opts.spin:  # (Claude Code's title: its tab is told apart as Claude's by it)
        sys.stdout.write("\x1b]0;\u2733 Claude Code\x07")
    print(f"stand-in ready ({opts.persona})", flush=True)
    # (and its footer at rest: "? for shortcuts" under the input box)
    rest = (lambda: print("\x1b]0;\u2733 Claude Code\x07  ? for shortcuts", flush=True)) if opts.spin \
        else (lambda: None)
    rest()
    for line in messages(sys.stdin):
        # what arrived in this one message, on one line, in a form that survives the screen's wrapping
        header = ("You are " + os.environ.get("TIKI_TAB", "?")) in line
        print(f"got: header={'yes' if header else 'no'} text={line.replace(chr(10), ' ')[-60:]}", flush=True)
        ack = ACK.search(line)
        if ack:
            subprocess.run(ack.group(1), shell=True, check=False)
            print("acked", flush=True)
        reply = answer(opts.persona, line)
        if reply is None:
            rest()
            continue
        slow = [float(s) for text, _, s in (rule.rpartition("=") for rule in opts.slow) if text in line]
        think(slow[0] if slow else opts.delay, opts.spin)
        subprocess.run(["tiki", "bot-chat", f"DONE({reply})"], check=False)
        if opts.log:
            with open(opts.log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"replied": time.time(), "text": reply}) + "\n")
        print("answered", flush=True)
        rest()


if __name__ == "__main__":
    main()
