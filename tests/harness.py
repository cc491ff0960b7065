"""What the tests draw on besides fixtures: the `tiki` binary, polling with a reason, the host's
log files, stopping a process for sure, the processes a test left behind, and `Host`, a real
`tiki serve` in a subprocess with ways to run `tiki` against it. (`conftest` re-exports these:
test modules import them from either.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

BIN = Path(sys.executable).parent
TIKI = str(BIN / "tiki")


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02, what: str = "condition") -> Any:
    """Poll until `predicate()` is truthy; fail the test with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last value: {last!r})")


def event_log(env: dict[str, str]) -> Path:
    """The event log of the host on `env`'s socket (each socket's host has its own)."""
    from tikitaka.protocol import paths

    return Path(env["TIKI_STATE_DIR"]) / paths.event_log_name(Path(env["TIKI_SOCKET"]))


def host_log(env: dict[str, str]) -> Path:
    """The log of a host `tiki` started in the background on `env`'s socket."""
    from tikitaka.protocol import paths

    return Path(env["TIKI_STATE_DIR"]) / paths.host_log_name(Path(env["TIKI_SOCKET"]))


def hide_host_record(env: dict[str, str]) -> None:
    """Move the running host's record of itself away: the CLI can no longer tell its pid, so
    it cannot see that the host is stopped (as where /proc and ps tell nothing)."""
    records = list((Path(env["TIKI_STATE_DIR"]) / "hosts").glob("*.json"))
    assert len(records) == 1, records
    records[0].rename(records[0].with_suffix(".away"))


def sigstop(pid: int) -> None:
    """SIGSTOP `pid` and wait until every thread of it has stopped: the signal is delivered
    asynchronously, and a host still running for a moment can accept the connection that a
    test counts on finding the queue full."""
    os.kill(pid, signal.SIGSTOP)

    def state(task: str) -> str:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "T"  # (a thread that ended meanwhile)

    wait_until(lambda: all(state(task) in "tT" for task in os.listdir(f"/proc/{pid}/task")), 10, 0.005,
               what=f"process {pid} to stop")


def leftovers(socket_path: str, grace: float = 10.0) -> dict[int, str]:
    """Processes started for one test (their environment names its socket) still running after
    `grace` seconds: pid -> command line. A host, its tabs' programs and a UI all carry it."""
    if not os.path.isdir("/proc"):  # (macOS: no way to read another process's environment)
        return {}
    mark = f"TIKI_SOCKET={socket_path}".encode()
    deadline = time.monotonic() + grace
    while True:
        found = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as environ:
                    if mark not in environ.read().split(b"\0"):
                        continue
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    found[int(entry)] = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:  # gone meanwhile, a zombie, or not ours to read
                continue
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


class Host:
    """A `tiki serve` subprocess and a way to run `tiki` commands against it."""

    def __init__(self, env: dict[str, str], workspace: Path, cwd: Path) -> None:
        self.env = env
        self.workspace = workspace
        self.cwd = cwd
        self.stderr_path = cwd / "serve.stderr"
        self.proc = subprocess.Popen(
            [TIKI, "serve", "--workspace", str(workspace)],
            env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.stderr_path, "wb"),
        )
        wait_until(self._ready, 20, what=f"tiki serve to answer (stderr: {self.stderr()!r})")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"tiki serve exited with {self.proc.returncode}: {self.stderr()}")
        if not self._socket_known():
            return self.run("terminal-list").returncode == 0
        return self.ask("terminal.list") is not None

    def _socket_known(self) -> bool:
        """The host's socket is a path this process can use as it is (not the default one,
        which `tiki` works out, nor one relative to the host's directory)."""
        return os.path.isabs(self.env.get("TIKI_SOCKET", ""))

    def ask(self, op: str, **args: Any) -> Any:
        """`op`'s result, asked over the socket from this process; None when the host refused
        or is not up. For the tests' own looks (polls, set-up): a `tiki` process per look cost
        ~0.1 s of CPU, taken from the host under test on a 2-core machine. What the CLI itself
        does is tested through `run`."""
        from ipc_helpers import request

        try:
            reply = request(self.env, op, timeout=20, **args)
        except OSError:  # not listening yet, or gone
            return None
        return reply["result"] if reply is not None and reply.get("ok") else None

    def run(self, *args: str, timeout: float = 60, env: dict[str, str] | None = None,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TIKI, *args], env=env or self.env, cwd=self.cwd, capture_output=True,
                              text=True, timeout=timeout, input=input)

    def json(self, *args: str) -> Any:
        result = self.run(*args, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def read(self, name: str, lines: int = 40) -> str:
        """What `tiki terminal-read NAME --lines LINES` prints ("" when refused)."""
        if not self._socket_known():
            done = self.run("terminal-read", name, "--lines", str(lines))
            return done.stdout if done.returncode == 0 else ""
        result = self.ask("terminal.read", name=name, lines=lines)
        return result["text"] + "\n" if result is not None else ""

    def wait_text(self, name: str, needle: str, timeout: float = 15, lines: int = 200) -> str:
        return wait_until(lambda: (text := self.read(name, lines)) and needle in text and text,
                          timeout, 0.05, what=f"{needle!r} in tab {name}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.run("shutdown", timeout=15)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


BASH_TAB = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\n'
PEER_STANDIN = Path(__file__).parent / "peer_standin.py"


def peer(name: str, *args: str) -> str:
    """A peer-role tab named `name` running the stand-in peer (tests/peer_standin.py) with `args`."""
    command = [sys.executable, str(PEER_STANDIN), *args]
    return f'[[tab]]\nname = "{name}"\ncommand = {json.dumps(command)}\nrole = "peer"\n'


def peer_got(host: Host, name: str, lines: int = 200) -> list[str]:
    """What the stand-in peer in tab `name` says it got: its `got: ...` lines among the last `lines`."""
    return [line for line in host.read(name, lines).splitlines() if line.startswith("got: ")]
