"""Shared fixtures: an isolated environment and a real `tiki serve` host in a subprocess.

Every test gets its own socket, config and state directories, so nothing touches the user's
real ones and tests never see each other's hosts: `apart_from_the_users_tiki` (every test) points
this process's TIKI_* paths at fresh temporary ones; `tiki_env` / `in_tiki_env` add a whole
environment for subprocesses and check that nothing the test started outlives it. `fake` is
a scripted fake model server and `fake_env` a `tiki_env` pointing a host at it. What they
build on (`Host`, `wait_until`, the `tiki` binary, ...) is in `harness`.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest
from harness import (  # noqa: F401 - test modules import these from here too
    BASH_TAB,
    BIN,
    PEER_STANDIN,
    TIKI,
    Host,
    event_log,
    hide_host_record,
    host_log,
    leftovers,
    peer,
    peer_got,
    sigstop,
    wait_until,
)

# The suite's own knobs, for a longer or seeded run by hand (TIKI_FUZZ_UI=20000, TIKI_VT_SEED=7,
# TIKI_FIELD_CTX=8192: each test's docstring offers its own): not tikitaka's, so they stay.
KNOBS = ("TIKI_FUZZ_", "TIKI_FIELD_", "TIKI_VT_")
# the user's own, never used
INHERITED = {k: v for k, v in os.environ.items() if k.startswith("TIKI_") and not k.startswith(KNOBS)}
# The shell every tab and pane a test opens without a command runs: bash without the rc files
# of whoever runs the suite (tests/shell/bash says why).
SHELL = str(Path(__file__).parent / "shell" / "bash")

# The agent CLIs the screen tests were written against, pinned, where .ci/run installs them:
# found before any other on the machine, whatever PATH pytest was started with (a newer Claude
# Code asks for the folder's trust with "No" first and has no "? for shortcuts").
NPM_BIN = Path(__file__).resolve().parent.parent / ".ci" / "npm" / "node_modules" / ".bin"
if NPM_BIN.is_dir():
    os.environ["PATH"] = f"{NPM_BIN}{os.pathsep}{os.environ.get('PATH', '')}"


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
    monkeypatch.setenv("SHELL", SHELL)  # (in-process hosts' default tabs, tmux servers the tests start)
    monkeypatch.setenv("TIKI_SOCKET", os.path.join(sock_dir, "s"))
    monkeypatch.setenv("TIKI_CONFIG_DIR", str(tmp_path / "tiki-config"))
    monkeypatch.setenv("TIKI_STATE_DIR", str(tmp_path / "tiki-state"))
    yield
    shutil.rmtree(sock_dir, ignore_errors=True)


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
        SHELL=SHELL,
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
