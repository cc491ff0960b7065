"""Shared set-up for the benchmarks: a private `tiki serve`, a private tmux server, stats."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

BIN = Path(sys.executable).parent
TIKI = str(BIN / "tiki")
COLS, ROWS = 120, 40


class TikiHost:
    """`tiki serve` in a throwaway environment, with an in-process client for polling."""

    def __init__(self, workspace: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tkb-"))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX"))}
        self.env.update(TIKI_SOCKET=str(self.dir / "s"), TIKI_CONFIG_DIR=str(self.dir / "c"),
                        TIKI_STATE_DIR=str(self.dir / "st"), PATH=f"{BIN}:{self.env.get('PATH', '')}")
        (self.dir / "c").mkdir()
        (self.dir / "c" / "config.toml").write_text(f"[terminal]\ncols = {COLS}\nrows = {ROWS}\n")
        ws = self.dir / "ws.toml"
        ws.write_text(workspace)
        self.proc = subprocess.Popen([TIKI, "serve", "--workspace", str(ws)], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.environ["TIKI_SOCKET"] = self.env["TIKI_SOCKET"]
        wait_for(lambda: self.try_call("host.ping"), 20)

    def call(self, op: str, args: dict[str, Any] | None = None, timeout: float = 60) -> Any:
        from tikitaka.app.client import call

        return call(op, args, timeout=timeout, socket_path=Path(self.env["TIKI_SOCKET"]))

    def try_call(self, op: str, args: dict[str, Any] | None = None) -> Any:
        try:
            return self.call(op, args)
        except Exception:
            return None

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TIKI, *args], env=self.env, capture_output=True, text=True)

    def read(self, name: str, lines: int = 5) -> str:
        return self.call("terminal.read", {"name": name, "lines": lines})["text"]

    def rss_kb(self) -> int:
        return rss_kb(self.proc.pid)

    def close(self) -> None:
        self.try_call("host.shutdown")
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class Tmux:
    """A private tmux server (its own socket), sized like the tiki tabs."""

    def __init__(self, history: int = 10_000, cols: int = COLS, rows: int = ROWS, name: str = "") -> None:
        self.name = name or f"tikibench{os.getpid()}"
        self.run("-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", str(cols), "-y", str(rows),
                 "bash --norc --noprofile")
        self.run("set-option", "-g", "history-limit", str(history))

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True).stdout

    def new_window(self, command: str) -> str:
        return self.run("new-window", "-P", "-F", "#{pane_id}", command).strip()

    def capture(self, pane: str, start: str = "-5") -> str:
        return self.run("capture-pane", "-p", "-t", pane, "-S", start)

    def server_pid(self) -> int:
        return int(self.run("display-message", "-p", "#{pid}").strip())

    def close(self) -> None:
        kill_server(self.name)


def kill_server(name: str) -> None:
    """Stop the tmux server `tmux -L name` and remove its socket, which tmux leaves behind."""
    subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)
    Path(os.environ.get("TMUX_TMPDIR") or "/tmp", f"tmux-{os.getuid()}", name).unlink(missing_ok=True)


class TmuxControl:
    """A persistent client of a tmux server in control mode (`tmux -C`): each command goes over
    one open pipe and its answer comes back on it, as a socket client's requests do -- so
    polling a pane costs tmux what polling a tab costs tikitaka, not a process per look. It
    receives no pane output (`-f no-output`) and does not size the windows (`ignore-size`)."""

    def __init__(self, server: str, session: str) -> None:
        self.proc = subprocess.Popen(["tmux", "-L", server, "-C", "attach", "-f", "no-output,ignore-size",
                                      "-t", session], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._block()  # the attach command's own (empty) answer comes first
        assert self.command("display-message -p ready") == "ready\n"

    def command(self, line: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        return self._block()

    def _block(self) -> str:
        assert self.proc.stdout is not None
        out: list[bytes] = []
        inside = False
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise RuntimeError("tmux control client ended")
            if raw.startswith(b"%begin"):
                inside, out = True, []
            elif raw.startswith((b"%end", b"%error")) and inside:
                return b"".join(out).decode("utf-8", "replace")
            elif inside:
                out.append(raw)

    def capture(self, target: str, start: str = "-5") -> str:
        return self.command(f"capture-pane -p -t {target} -S {start}")

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("benchmark condition not reached")


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(ordered)})"


def median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
