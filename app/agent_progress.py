"""Coordinator progress in words, for `tiki ask` and the TUI's agent panel alike.

Events arrive as JSON (`RunEvent.to_json()`). `status_text` is the line that updates in place
(loading, reading the prompt, generating with its rate); `event_text` is what is worth keeping
(tool calls and results, corrections with their cause, compaction, the final figures).
`Printer` puts them on a terminal: on a TTY one updating line with the kept lines above it;
otherwise the kept lines, each turn's figures, and a heartbeat line every few seconds.
Every run says its id when it starts (and a queued one what it waits behind), so
`tiki cancel RUN_ID` is always at hand. Imports nothing heavy: this is on the CLI's fast path.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from typing import Any, TextIO

HEARTBEAT = 5.0  # seconds between status lines when stderr is not a terminal
# C0 controls but newline and tab, DEL and C1 (0x9b is CSI to many terminals)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """`text` with its control characters shown as `\\xNN`: text a peer or a model wrote can
    then not move the cursor, retitle, clear or reprogram the terminal it is printed on."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


def status_text(event: dict[str, Any]) -> str | None:
    kind = event.get("kind")
    if kind == "queued" and event.get("behind"):
        return f"queued behind run {event['behind']}…"
    if kind == "started":
        return f"run {event['run_id']} started"
    if kind == "loading":
        size = f" ({event['megabytes']:,.0f} MB)" if event.get("megabytes") else ""
        return f"loading model {event['model']}{size}…"
    if kind == "turn":
        return f"turn {event['turn']} · reading prompt {event['prompt_tokens']:,} tok"
    if kind == "generating":
        if event.get("thinking") and not event.get("tokens"):
            return (f"turn {event['turn']} · thinking {event['thinking']:,} tok · {event['rate']:.1f} tok/s · "
                    f"{event['seconds']:.0f} s")
        return (f"turn {event['turn']} · generating {event['tokens']:,} tok · {event['rate']:.1f} tok/s · "
                f"{event['seconds']:.0f} s")
    if kind == "tool_start":
        return f"running {event['tool']}…"
    return None


def unasked_text(event: dict[str, Any]) -> str | None:
    """For a `done` that skipped a peer the request named (a small model answers "ask Claude
    ..." itself, even after being told once): said beside the answer, which is not the peer's."""
    names = [safe(str(name)) for name in event.get("unasked") or ()]
    if event.get("kind") != "done" or not names:
        return None
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{who} {'was' if len(names) == 1 else 'were'} never asked: the answer is the coordinator's own"


def event_text(event: dict[str, Any]) -> str | None:
    kind = event.get("kind")
    if kind == "queued" and event.get("behind"):
        more = f", {event['ahead']} more ahead" if event.get("ahead") else ""
        return (f"queued behind run {event['behind']} ({safe(event.get('behind_prompt', ''))}){more}; "
                f"`tiki cancel {event['run_id']}` drops it")
    if kind == "started":
        return f"run {event['run_id']} started; `tiki cancel {event['run_id']}` stops it"
    if kind == "loading":
        return "… " + status_text(event)  # type: ignore[operator]
    if kind == "tool_start":
        return f"→ {event['tool']} {json.dumps(event['args'], ensure_ascii=False)[:300]}"
    if kind == "tool_end":
        result = json.dumps(event["result"], ensure_ascii=False)
        return f"← {event['tool']} ({event['duration']:.2f} s) {result[:300]}"
    if kind == "correction":
        return f"! {event.get('cause', 'correction')}: {event['message']}"
    if kind == "compacted":
        return (f"· context compacted: {event['before']:,} → {event['after']:,} tok "
                f"({event.get('note') or 'older results shortened'})")
    if kind == "consent_needed":
        return f"? consent needed to type into shell tab {event['tab']}"
    if kind in ("done", "error"):
        what = "done" if kind == "done" else "stopped"
        return (f"{what} · {event.get('turns', 0)} turn{'s' if event.get('turns') != 1 else ''} · "
                f"{event.get('tokens', 0):,} tok · {event.get('seconds', 0):.1f} s")
    return None


class Printer:
    def __init__(self, stream: TextIO, tty: bool, heartbeat: float = HEARTBEAT) -> None:
        self.stream, self.tty, self.heartbeat = stream, tty, heartbeat
        self.status = ""
        self.shown = False  # the status line is on screen (TTY)
        self.printed = time.monotonic()  # last status line printed (not a TTY)

    def __call__(self, event: dict[str, Any]) -> None:
        line, status = event_text(event), status_text(event)
        if status:
            self.status = status
        if self.tty:
            if line:
                self._clear()
                print(line, file=self.stream, flush=True)
            if self.status and event.get("kind") not in ("done", "error"):
                self._draw()
            return
        if line:
            print(line, file=self.stream, flush=True)
        kind = event.get("kind")
        if kind == "turn" or (kind == "generating" and event.get("final")):
            self._say(self.status)  # every turn's prompt and figures, however fast it went
        elif self.status and kind in ("generating", "alive") and time.monotonic() - self.printed >= self.heartbeat:
            waiting = self.status.startswith("queued")
            self._say(self.status + ("" if kind == "generating" else " · still waiting" if waiting else " · still working"))

    def _say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
        self.printed = time.monotonic()

    def _draw(self) -> None:
        width = shutil.get_terminal_size((100, 20)).columns - 1
        self.stream.write("\r\x1b[K" + self.status[:width])
        self.stream.flush()
        self.shown = True

    def _clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.shown = False

    def close(self) -> None:
        if self.tty:
            self._clear()
            self.stream.flush()
