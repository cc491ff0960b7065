"""Bytes a remote client gets while an agent works in a watched tab: one turn of the Claude Code
stand-in (tests/standins/claude_standin.py: its spinner and counter ten times a second, its
whole input area drawn again at each tick, the permission question answered 1), as a UI
session of the host receives it -- the socket's bytes, and how many of the rows it carried
differ from what the UI had already. The reference is a tmux control-mode client (`tmux -C`,
what iTerm2's tmux integration speaks) attached to a tmux server whose pane, of the same size,
runs the same turn: tmux sends such a client the pane's output as it comes (`%output`).

    python bench/session_bytes.py [--speed 1] [--cols 120 --rows 40]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from common import TikiHost, Tmux, wait_for

STANDIN = Path(__file__).resolve().parent.parent / "tests" / "standins" / "claude_standin.py"
PROMPT = "refactor the parser please"


class Counted:
    """A UI session watching the tab: every line off its socket counted, every screen frame's
    rows checked against the rows this UI already had."""

    def __init__(self, host: TikiHost, cols: int, rows: int) -> None:
        from tikitaka.app.ui_client import UiClient

        self.client = UiClient(Path(host.env["TIKI_SOCKET"]), client="bench")
        hello = self.client.connect(cols, rows)
        self.tab = hello["tabs"][0]["id"]
        self.shown: dict[str, object] = {}
        self.bytes = self.frames = self.rows = self.differed = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.client.watch(self.tab)

    def _read(self) -> None:
        for line in self.client._file:  # (the session's own lines: what went over the socket)
            event = json.loads(line).get("event") or {}
            with self.lock:
                self.bytes += len(line)
                if event.get("kind") != "screen":
                    continue
                if event["full"]:
                    self.shown = {}
                self.frames += 1
                for row, cells in event["lines"].items():
                    self.rows += 1
                    self.differed += self.shown.get(row) != cells
                    self.shown[row] = cells

    def reset(self) -> None:
        with self.lock:
            self.bytes = self.frames = self.rows = self.differed = 0

    def screen(self) -> str:
        with self.lock:
            return "\n".join("".join(text for text, _ in cells) for cells in self.shown.values())  # type: ignore[union-attr]


class ControlClient:
    """`tmux -C` attached to the pane's session, with its output: bytes counted from reset()."""

    def __init__(self, tmux: Tmux) -> None:
        self.proc = subprocess.Popen(["tmux", "-L", tmux.name, "-C", "attach", "-f", "ignore-size", "-t", "b"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.bytes = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.bytes += len(line)

    def reset(self) -> None:
        self.bytes = 0

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def turn(type_keys: Callable[[str], object], screen: Callable[[], str], speed: float) -> float:
    """One turn: the prompt, Enter, the question answered 1, until "Worked for" shows."""
    start = time.monotonic()
    type_keys(PROMPT)
    time.sleep(0.3)
    type_keys("\r")
    wait_for(lambda: "Do you want to proceed?" in screen(), 5 * speed + 20)
    type_keys("1")
    wait_for(lambda: "Worked for" in screen(), 5 * speed + 20)
    time.sleep(0.5)  # (its last frames)
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--cols", type=int, default=120)
    parser.add_argument("--rows", type=int, default=40)
    args = parser.parse_args()
    command = [sys.executable, str(STANDIN), "--speed", f"{args.speed:g}"]

    host = TikiHost(f'[[tab]]\nname = "Claude"\ncommand = {json.dumps(command)}\n')
    try:
        ui = Counted(host, args.cols, args.rows)
        wait_for(lambda: "? for shortcuts" in ui.screen(), 20)
        time.sleep(1.0)
        ui.reset()
        seconds = turn(lambda keys: ui.client.input(ui.tab, keys.encode()), ui.screen, args.speed)
        with ui.lock:
            tiki = (ui.bytes, ui.frames, ui.rows, ui.differed)
        ui.client.close()
    finally:
        host.close()

    tmux = Tmux(cols=args.cols, rows=args.rows)
    try:
        tmux.run("respawn-pane", "-k", "-t", "b", " ".join(command))
        client = ControlClient(tmux)
        wait_for(lambda: "? for shortcuts" in tmux.capture("b", "0"), 20)
        time.sleep(1.0)
        client.reset()
        tmux_seconds = turn(lambda keys: tmux.run("send-keys", "-t", "b", *(["Enter"] if keys == "\r" else ["-l", keys])),
                            lambda: tmux.capture("b", "0"), args.speed)
        tmux_bytes = client.bytes
        client.close()
    finally:
        tmux.close()

    sent, frames, rows, differed = tiki
    print(f"one Claude Code stand-in turn (speed {args.speed:g}), {args.cols}x{args.rows}")
    print(f"tiki UI session: {sent:,} bytes in {seconds:.1f} s, {frames} screen frames, {rows} rows sent, "
          f"{differed} of them differed from what the UI had")
    print(f"tmux -C client:  {tmux_bytes:,} bytes in {tmux_seconds:.1f} s")
    print(f"ratio tiki / tmux bytes: {sent / max(1, tmux_bytes):.2f}x")


if __name__ == "__main__":
    main()
