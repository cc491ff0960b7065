"""An outer terminal for tests that see what a user sees: a private tmux server whose windows
run the real `tiki` binary, driven with the key encodings a real terminal sends."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import avt
import pytest
from conftest import TIKI, wait_until

# The marks of a test module that drives the real binary in tmux (`from tmux_outer import pytestmark`).
pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]
HERE = Path(__file__).parent
BASH = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'


def logger_tab(log: Path) -> str:
    return (f'[[tab]]\nname = "log"\ncommand = ["{sys.executable}", "{HERE / "key_logger.py"}", "{log}"]\n'
            'role = "shell"\n')


def tiki(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, *args], env=env, capture_output=True, text=True, timeout=60)


def read(env: dict[str, str], tab: str, lines: int = 60) -> str:
    return tiki(env, "terminal-read", tab, "--lines", str(lines)).stdout


def received(log: Path) -> str:
    if not log.exists():
        return ""
    return "".join(json.loads(line)["data"] for line in log.read_text().splitlines())


class Outer:
    def __init__(self, env: dict[str, str], cols: int = 140, rows: int = 45) -> None:
        self.server = f"tikitest{uuid.uuid4().hex[:6]}"
        self.env = env
        self.cols, self.rows = cols, rows
        self.runs: dict[str, int] = {}  # window -> `tiki` runs typed there
        self.exports = " ".join(f"{k}='{v}'" for k, v in env.items() if k.startswith(("TIKI_", "OLLAMA")))
        if os.environ.get("TIKI_UI_TRACE"):
            self.exports += f" TIKI_UI_TRACE='{os.environ['TIKI_UI_TRACE']}'"
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(cols), "-y", str(rows), "-n", "w0",
                  "bash --norc --noprofile")
        self.tmux("set-option", "-g", "remain-on-exit", "off")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.server, *args], capture_output=True, text=True).stdout

    def window(self, name: str, cols: int | None = None, rows: int | None = None) -> str:
        """A new window with a shell, sized like a terminal of its own."""
        self.tmux("new-window", "-d", "-n", name, "bash --norc --noprofile")
        if cols and rows:
            self.tmux("set-option", "-w", "-t", name, "window-size", "manual")
            self.tmux("resize-window", "-t", name, "-x", str(cols), "-y", str(rows))
        wait_until(lambda: self.screen(name).strip(), 10, 0.05, what=f"a shell in window {name}")
        return name

    def tiki(self, window: str, *args: str, cwd: str | None = None, via: str = "") -> None:
        """Run `tiki ARGS` in `window`'s shell (through the command `via`, if given), then print
        its exit code, marked with the run's number: `wait(window, "TIKI-EXIT=0")` waits for this
        run's, not an earlier one still on the screen."""
        where = f"cd '{cwd}'; " if cwd else ""
        self.runs[window] = self.runs.get(window, 0) + 1
        line = (f"{where}env -u COLUMNS -u LINES {self.exports} PS1='$ ' {via} {TIKI} {' '.join(args)}; "
                f"echo TIKI-EXIT=$? run-{self.runs[window]}")
        self.keys(window, line, "Enter")

    def start_ui(self, workspace: Path, text: str, ready: str = "? help", cwd: Path | None = None,
                 via: str = "") -> str:
        """Window w0 runs the `tiki` UI on `workspace` (written with `text` first), started from
        `cwd` (the workspace's folder) through `via`; returns its screen once `ready` shows."""
        workspace.write_text(text)
        self.tiki("w0", "--workspace", str(workspace), cwd=str(cwd or workspace.parent), via=via)
        return self.wait("w0", ready)

    def clear(self, window: str) -> None:
        """`clear` typed at the window's shell, and waited for: the next `wait` must not find
        the last command's words still on the screen (under load the shell takes a while)."""
        self.keys(window, "clear", "Enter")
        wait_until(lambda: len([row for row in self.screen(window).splitlines() if row.strip()]) <= 1, 10, 0.05,
                   what=f"window {window} cleared")

    def keys(self, window: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", window, *keys)

    def literal(self, window: str, text: str) -> None:
        self.tmux("send-keys", "-t", window, "-l", text)

    def screen(self, window: str, escapes: bool = False) -> str:
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", window)

    def settled(self, window: str, timeout: float = 10) -> str:
        """The window's screen once two looks 50 ms apart agree: tmux 3.3 takes a repaint in
        pieces as it reads them, and a look between two pieces sees half of each screen."""
        last = [self.screen(window)]

        def same() -> str | None:
            time.sleep(0.05)
            before, last[0] = last[0], self.screen(window)
            return last[0] if last[0] == before else None
        return wait_until(same, timeout, 0.0, what=f"window {window}'s screen to settle")

    def wait(self, window: str, needle: str, timeout: float = 30) -> str:
        if needle.startswith("TIKI-EXIT=") and window in self.runs:
            needle = f"{needle} run-{self.runs[window]}"  # (the last run's, see `tiki`)
        try:
            return wait_until(lambda: needle in (s := self.screen(window)) and s, timeout, 0.1,
                              what=f"{needle!r} in window {window}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen now:\n{self.screen(window)}") from None

    def wait_screen(self, window: str, expected: str, what: str, timeout: float = 10) -> None:
        """Until the window's screen is `expected`, row for row; a failure shows the rows that
        differ (a whole-screen comparison is otherwise hard to read)."""
        try:
            wait_until(lambda: self.screen(window) == expected, timeout, 0.1, what=what)
        except AssertionError as exc:
            diff = difflib.unified_diff(expected.splitlines(), self.screen(window).splitlines(), "expected", "now",
                                        lineterm="")
            raise AssertionError(f"{exc}:\n" + "\n".join(diff)) from None

    def pane_pid(self, window: str) -> int:
        return int(self.tmux("display-message", "-p", "-t", window, "#{pane_pid}").strip())

    def ui_pid(self, window: str) -> int | None:
        """The pid of the `tiki` UI running in `window`'s shell (under any `via` command)."""
        pid = self.pane_pid(window)
        while True:
            out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
            if not out:
                return None
            pid = int(out[0])
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if TIKI.encode() in cmdline.read():
                    return pid

    def cells(self, window: str, cols: int) -> list[list[tuple[str, str]]]:
        """Every cell (character and attributes) of the window's first `cols` columns."""
        width, height = (int(v) for v in self.tmux("display-message", "-p", "-t", window,
                                                   "#{pane_width} #{pane_height}").split())
        vt = avt.Vt(width, height, scrollback_limit=0)
        vt.feed_str(self.screen(window, escapes=True).rstrip("\n").replace("\n", "\r\n"))
        return [[(cell.char, repr(cell.pen)) for cell in line.cells[:cols]] for line in vt.view()]

    def ai_mode(self, window: str = "w0") -> None:
        """The keyboard to the agent panel (prefix a), then its AI mode (Shift+Tab twice)."""
        self.keys(window, "C-\\", "a")
        self.wait(window, "CHT: type into the active tab")
        self.keys(window, "BTab", "BTab")  # CHT -> KEY -> AI
        self.wait(window, "AI: ask the coordinator")

    def close(self) -> None:
        """End the outer terminal and the host its `tiki` started: a UI's host runs on by design
        after its terminal is gone, so it is stopped explicitly (a no-op when none runs)."""
        self.tmux("kill-server")
        # (tmux leaves its socket: runs of the suite had left ~1,300 in /tmp/tmux-UID)
        Path(os.environ.get("TMUX_TMPDIR") or "/tmp", f"tmux-{os.getuid()}", self.server).unlink(missing_ok=True)
        subprocess.run([TIKI, "shutdown"], env=self.env, capture_output=True, timeout=60)


def panel_at(env: dict[str, str], where: str) -> None:
    """The agent panel docked `where` (right, bottom, hidden) at start, as ui.toml remembers it."""
    config = Path(env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "ui.toml").write_text(f'panel = "{where}"\n')


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def gone_after(pids: list[int], timeout: float = 15) -> bool:
    return bool(wait_until(lambda: not any(alive(p) for p in pids), timeout, 0.1,
                           what=f"processes {pids} to end"))


__all__ = ["Outer", "alive", "gone_after", "os"]
