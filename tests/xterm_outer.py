"""An outer terminal that is not tmux: a real xterm on a virtual X display (Xvfb), running the
real `tiki` UI. xterm has what tmux lacks -- left and right margins (DECSLRM), DECRQM answers
-- so the UI's paths for such terminals run against the terminal they are written for.

What it shows is read with xterm's own print-immediate (bound to F12, written as plain text),
what it received with its logging (`-l`), and keys reach it as X key events (xdotool; xterm
takes them with allowSendEvents)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import TIKI, wait_until

pytestmark = [pytest.mark.skipif(not all(shutil.which(tool) for tool in ("xterm", "Xvfb", "xdotool")),
                                 reason="needs xterm, Xvfb and xdotool"), pytest.mark.xterm]


class XTerm:
    def __init__(self, env: dict[str, str], folder: Path, command: str, cols: int = 140, rows: int = 45) -> None:
        """`command` (a shell line) runs in an xterm of `cols` x `rows` with `env`."""
        self.folder, self.env = folder, env
        self.log, self.shots = folder / "xterm.log", folder / "shots"
        self.shots.mkdir(parents=True, exist_ok=True)
        read, write = os.pipe()
        self.x = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
                                  pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as displayfd:
            self.display = f":{displayfd.readline().strip()}"
        resources = {"allowSendEvents": "true", "printFileImmediate": str(self.shots / "shot"),
                     "printAttributes": "0", "printOptsImmediate": "1", "VT100.translations":
                     "#override <Key>F12: print-immediate()"}
        args = [arg for name, value in resources.items() for arg in ("-xrm", f"XTerm*{name}: {value}")]
        self.term = subprocess.Popen(["xterm", "-l", "-lf", str(self.log), "-geometry", f"{cols}x{rows}", *args,
                                      "-e", "bash", "--norc", "--noprofile", "-c", command],
                                     env={**self._own_size(env), "DISPLAY": self.display}, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        found = self._xdotool("search", "--sync", "--pid", str(self.term.pid))
        self.window = found.split()[0]

    @staticmethod
    def _own_size(env: dict[str, str]) -> dict[str, str]:
        """`env` without COLUMNS and LINES (pytest-xdist's workers have them): Textual would
        take them over the terminal's own size."""
        return {key: value for key, value in env.items() if key not in ("COLUMNS", "LINES")}

    def _xdotool(self, *args: str) -> str:
        return subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": self.display},
                              capture_output=True, text=True, timeout=30).stdout

    def keys(self, *keys: str) -> None:
        """X key names (`ctrl+backslash`, `question`, `Escape`), pressed in order."""
        self._xdotool("key", "--window", self.window, *keys)

    def screen(self) -> str:
        """What xterm shows, row by row (its print-immediate)."""
        for old in self.shots.iterdir():
            old.unlink()
        self.keys("F12")

        def printed() -> str | None:
            shots = list(self.shots.iterdir())
            if not shots:
                return None
            text = shots[0].read_text(errors="replace")
            time.sleep(0.05)
            return text if text and shots[0].read_text(errors="replace") == text else None
        return wait_until(printed, 10, 0.05, what="xterm's print of its screen")

    def settled(self, timeout: float = 10) -> str:
        """The screen once two prints 0.2 s apart agree (the UI's first paints are done)."""
        last = [self.screen()]

        def same() -> str | None:
            time.sleep(0.2)
            before, last[0] = last[0], self.screen()
            return last[0] if last[0] == before else None
        return wait_until(same, timeout, 0.0, what="xterm's screen to settle")

    def wait(self, needle: str, timeout: float = 30) -> str:
        try:
            return wait_until(lambda: needle in (s := self.screen()) and s, timeout, 0.2,
                              what=f"{needle!r} on xterm's screen")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen now:\n{self.screen()}") from None

    def received(self) -> int:
        """Bytes xterm has been sent so far (its log)."""
        return self.log.stat().st_size if self.log.exists() else 0

    def close(self) -> None:
        """The xterm and its display gone, and the host the `tiki` in it started stopped."""
        for process in (self.term, self.x):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        subprocess.run([TIKI, "shutdown"], env=self.env, capture_output=True, timeout=60)
