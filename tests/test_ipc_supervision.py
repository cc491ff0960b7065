"""Faults injected into the IPC server's threads: the supervisor logs each once, restarts the
accept loop, and the next request is served (issue 8, supervision of `ipc.accept` and
`ipc.connection`)."""

from __future__ import annotations

import io

import pykka
import pytest
from conftest import BASH_TAB, wait_until

from tikitaka.actors.host import Host, HostOptions
from tikitaka.actors.ipc import connection as ipc_conn
from tikitaka.app.client import HostError, NoHost, call
from tikitaka.protocol.settings import Settings


@pytest.fixture
def host(tmp_path, in_tiki_env):
    path = tmp_path / "workspace.toml"
    path.write_text(BASH_TAB)
    host = Host(HostOptions(workspace=path, settings=Settings(), coordinator=False, peers=False))
    host.supervisor._stream = io.StringIO()  # the host log, where a failure's one line goes
    host.start()
    yield host
    host.stop()
    pykka.ActorRegistry.stop_all()


def _once(monkeypatch, name: str, exc: BaseException) -> list[int]:
    """Make Acceptor.<name> raise `exc` on its next call only."""
    original = getattr(ipc_conn.Acceptor, name)
    calls = []

    def faulty(self, *args):
        calls.append(1)
        if len(calls) == 1:
            raise exc
        return original(self, *args)

    monkeypatch.setattr(ipc_conn.Acceptor, name, faulty)
    return calls


def test_a_crashed_accept_loop_is_restarted_and_serves_again(host, monkeypatch):
    calls = _once(monkeypatch, "_expire", RuntimeError("injected accept-loop fault"))
    wait_until(lambda: calls, 5, what="the accept loop to run its deadline check")
    assert call("terminal.list", timeout=10)["terminals"][0]["name"] == "sh"
    health = wait_until(lambda: (h := host.supervisor.health())["ipc.accept"]["restarts"] == 1 and h, 5,
                        what="the restart to be counted")
    assert health["ipc.accept"]["state"] == "restarted"
    assert "injected accept-loop fault" in health["ipc.accept"]["last_error"]
    log = host.supervisor._stream.getvalue().splitlines()
    assert len([line for line in log if "injected" in line]) == 1, log


def test_a_fault_on_one_connection_costs_that_connection_only(host, monkeypatch):
    _once(monkeypatch, "_admit", RuntimeError("injected connection fault"))
    with pytest.raises((HostError, NoHost)):  # the unlucky client is dropped without an answer...
        call("terminal.list", timeout=10, patience=0)
    assert call("terminal.list", timeout=10)["terminals"][0]["name"] == "sh"  # ...the next one is served
    health = host.supervisor.health()
    assert health["ipc.connection"]["failures"] == 1 and health["ipc.accept"]["restarts"] == 0, health
    log = host.supervisor._stream.getvalue().splitlines()
    assert len([line for line in log if "injected" in line]) == 1, log
