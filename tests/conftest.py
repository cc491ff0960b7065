"""Shared fixtures: an isolated environment and a real `tiki serve` host in a subprocess.

Every test gets its own socket, config and state directories, so nothing touches the user's
real ones and tests never see each other's hosts: `apart_from_the_users_tiki` (every test) points
this process's TIKI_* paths at fresh temporary ones; `tiki_env` / `in_tiki_env` add a whole
environment for subprocesses and check that nothing the test started outlives it. `fake` is
a scripted fake model server and `fake_env` a `tiki_env` pointing a host at it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import pytest

BIN = Path(sys.executable).parent
TIKI = str(BIN / "tiki")
INHERITED = {k: v for k, v in os.environ.items() if k.startswith("TIKI_")}  # the user's, never used


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile tikitaka's modules once, up front. The suite starts well over a thousand `tiki`
    processes (hosts, UIs, CLI calls), and where PYTHONDONTWRITEBYTECODE is set -- this CI's
    environment sets it -- each one compiled every module from source again: ~0.1 s more per
    host start, ~20 ms per CLI call. (The flag only stops Python writing bytecode; what is
    written here is read.)"""
    import compileall
    import importlib

    for package in ("actors", "app", "terminals", "protocol"):  # (where the install maps them)
        compileall.compile_dir(str(Path(importlib.import_module(f"tikitaka.{package}").__file__).parent), quiet=1)


@pytest.fixture(autouse=True)
def apart_from_the_users_tiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Fresh TIKI_* paths for every test, whatever the shell that ran pytest had: a host a test
    starts in process must never meet the user's (tests/test_isolation.py)."""
    for key in INHERITED:
        monkeypatch.delenv(key)
    sock_dir = tempfile.mkdtemp(prefix="tk-")  # (AF_UNIX paths: ~100 bytes at most)
    monkeypatch.setenv("TIKI_SOCKET", os.path.join(sock_dir, "s"))
    monkeypatch.setenv("TIKI_CONFIG_DIR", str(tmp_path / "tiki-config"))
    monkeypatch.setenv("TIKI_STATE_DIR", str(tmp_path / "tiki-state"))
    yield
    shutil.rmtree(sock_dir, ignore_errors=True)


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


@pytest.fixture
def tiki_env(tmp_path: Path) -> dict[str, str]:
    # AF_UNIX paths are limited to ~100 bytes: keep the socket in a short directory.
    sock_dir = tempfile.mkdtemp(prefix="tk-")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKI_", "TMUX"))}
    env.update(
        TIKI_SOCKET=os.path.join(sock_dir, "s"),
        TIKI_CONFIG_DIR=str(tmp_path / "config"),
        TIKI_STATE_DIR=str(tmp_path / "state"),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        SHELL="/bin/bash",
        OLLAMA_HOST="http://127.0.0.1:9",  # never a real server by accident
    )
    yield env
    try:
        left = leftovers(env["TIKI_SOCKET"])
        if left:  # a test that ends must leave no host, tab program or UI of its own behind
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            pytest.fail("processes outlived the test (killed now): " + "; ".join(left.values()), pytrace=False)
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)


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


@pytest.fixture
def serve(tiki_env: dict[str, str], tmp_path: Path):
    """Start `tiki serve` on a workspace given as TOML text; stopped at teardown."""
    hosts: list[Host] = []

    def start(workspace_toml: str, env: dict[str, str] | None = None) -> Host:
        path = tmp_path / f"workspace{len(hosts)}.toml"
        path.write_text(workspace_toml)
        host = Host(env or tiki_env, path, tmp_path)
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.stop()


BASH_TAB = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\n'
PEER_STANDIN = Path(__file__).parent / "peer_standin.py"


def peer(name: str, *args: str) -> str:
    """A peer-role tab named `name` running the stand-in peer (tests/peer_standin.py) with `args`."""
    command = [sys.executable, str(PEER_STANDIN), *args]
    return f'[[tab]]\nname = "{name}"\ncommand = {json.dumps(command)}\nrole = "peer"\n'


def peer_got(host: Host, name: str, lines: int = 200) -> list[str]:
    """What the stand-in peer in tab `name` says it got: its `got: ...` lines among the last `lines`."""
    return [line for line in host.read(name, lines).splitlines() if line.startswith("got: ")]


@pytest.fixture
def in_tiki_env(tiki_env, monkeypatch) -> dict[str, str]:
    """The isolated environment applied to this process, for in-process hosts."""
    for key, value in tiki_env.items():
        monkeypatch.setenv(key, value)
    return tiki_env


@pytest.fixture
def bash_host(in_tiki_env, tmp_path):
    """A host in this process (its actors reachable, their classes patchable for a fault) with
    one bash tab "sh", no coordinator and no peers."""
    from tikitaka.actors.host import Host, HostOptions

    workspace = tmp_path / "workspace.toml"
    workspace.write_text(BASH_TAB)
    host = Host(HostOptions(workspace=workspace, coordinator=False, peers=False))
    host.start()
    yield host
    host.stop()


@pytest.fixture
def plain_hosts(tmp_path, in_tiki_env):
    """Start in-process hosts without the coordinator or the bot: `start(workspace_toml,
    settings=None)`; all stopped at the end of the test."""
    import pykka

    from tikitaka.actors.host import Host, HostOptions

    hosts = []

    def start(workspace: str, settings: Any = None) -> Host:
        path = tmp_path / "workspace.toml"
        path.write_text(workspace)
        host = Host(HostOptions(workspace=path, settings=settings, coordinator=False, peers=False))
        host.start()
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.stop()
    pykka.ActorRegistry.stop_all()


@pytest.fixture
def agent(tmp_path, in_tiki_env):
    """Make in-process hosts whose coordinator talks to a scripted fake Ollama."""
    from agent_helpers import AgentHost

    hosts = []

    def make(workspace: str = BASH_TAB, **coordinator):
        host = AgentHost(tmp_path, workspace, **coordinator)
        hosts.append(host)
        return host

    yield make
    for host in hosts:
        host.close()


@pytest.fixture
def fake(request: pytest.FixtureRequest):
    """A scripted fake model server, closed at the end of the test: the fake Ollama
    (tests/fake_ollama.py), or, parametrized indirectly with "openai", the fake OpenAI-compatible
    server (tests/fake_openai.py). Both take the same `Reply` scripts."""
    if getattr(request, "param", "ollama") == "openai":
        from fake_openai import FakeOpenAI

        server: Any = FakeOpenAI()
    else:
        from fake_ollama import FakeOllama

        server = FakeOllama()
    yield server
    server.close()


@pytest.fixture
def fake_env(tiki_env: dict[str, str], fake: Any) -> dict[str, str]:
    """`tiki_env` for a `tiki serve` whose coordinator talks to the fake Ollama."""
    return {**tiki_env, "OLLAMA_HOST": fake.url, "TIKI_BACKEND": "ollama"}
