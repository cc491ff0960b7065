"""A host whose socket file is removed under it -- a /tmp cleaner, `rm -rf` of its directory,
a tidy-up script -- runs on with its tabs. It used to be lost: the command line said no host
ran, and `tiki` started a second host beside it on the same path, the first one's tabs out of
everyone's reach. Real hosts, the real CLI, real sockets."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from conftest import BASH_TAB, TIKI, sigstop, wait_until


def hosts_running(env: dict[str, str]) -> list[int]:
    """The pids of `tiki serve` processes on this test's socket."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in words and any(b"tiki" in word for word in words) and \
                f"TIKI_SOCKET={env['TIKI_SOCKET']}".encode() in environ:
            found.append(int(pid))
    return found


@pytest.mark.parametrize("ipc", ["unix", "tcp"])
def test_a_host_whose_socket_file_is_removed_makes_it_again(serve, tiki_env, ipc: str) -> None:
    host = serve(BASH_TAB, dict(tiki_env, TIKI_IPC=ipc) if ipc == "tcp" else None)
    host.run("terminal-send", "sh", "echo still-the-same-shell")
    host.wait_text("sh", "still-the-same-shell\n")
    sock = Path(host.env["TIKI_SOCKET"])
    pid = host.proc.pid
    for how, remove in (("the file", sock.unlink), ("its directory", lambda: shutil.rmtree(sock.parent))):
        remove()
        began = time.monotonic()
        listed = host.run("terminal-list", "--json")  # (at once: it waits for the host to make the file)
        assert listed.returncode == 0, (how, listed.stderr)
        assert time.monotonic() - began < 5, how
        assert [tab["name"] for tab in json.loads(listed.stdout)["terminals"]] == ["sh"], how
        assert json.loads(host.run("status", "--json").stdout)["host"]["pid"] == pid, how
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600 and stat.S_IMODE(sock.parent.stat().st_mode) == 0o700, how
    assert "still-the-same-shell" in host.read("sh")  # the same tab, not a new one
    assert hosts_running(host.env) == [pid]
    log = host.run("log").stdout
    assert log.count("socket remade") == 2, log


def test_tiki_beside_a_host_whose_socket_file_is_gone_does_not_start_a_second_host(serve, tiki_env, tmp_path) -> None:
    """The running host cannot make its file again here (it is stopped): `tiki serve` and the
    command line say so and name it, and no second host takes its path."""
    host = serve(BASH_TAB)
    sock, pid = Path(host.env["TIKI_SOCKET"]), host.proc.pid
    (tmp_path / "other.toml").write_text(BASH_TAB)
    sock.unlink()
    sigstop(pid)
    try:
        began = time.monotonic()
        second = subprocess.run([TIKI, "serve", "--workspace", str(tmp_path / "other.toml")], env=tiki_env,
                                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert second.returncode != 0 and f"(pid {pid}) is running, but its socket file was removed" in second.stderr, \
            second.stderr
        assert f"kill -CONT {pid}" in second.stderr and time.monotonic() - began < 20
        assert not sock.exists() and hosts_running(host.env) == [pid]
        listed = host.run("terminal-list")
        assert listed.returncode in (3, 4) and str(pid) in listed.stderr, listed
    finally:
        os.kill(pid, signal.SIGCONT)
    # Woken, it makes its file again; the CLI finds it and its tab.
    wait_until(sock.exists, 10, 0.05, what="the socket made again")
    listed = host.run("terminal-list")
    assert listed.returncode == 0 and "sh" in listed.stdout, listed.stderr


@pytest.mark.parametrize("with_socket", [False, True])
def test_the_record_of_a_running_host_is_made_again(serve, with_socket: bool) -> None:
    """The state directory wiped (and the socket with it, or not): without its record the next
    `tiki` could not tell that the host runs, and after a crash could not restore its workspace."""
    host = serve(BASH_TAB)
    sock = Path(host.env["TIKI_SOCKET"])
    state = Path(host.env["TIKI_STATE_DIR"])
    shutil.rmtree(state, ignore_errors=True)  # (as `rm -rf` under a host that writes there: what it can)
    if with_socket:
        sock.unlink()
    records = state / "hosts"
    wait_until(lambda: sock.exists() and list(records.glob("*.json")), 10, 0.05, what="the record made again")
    record = json.loads(next(records.glob("*.json")).read_text())
    assert record["pid"] == host.proc.pid and record["workspace"] == str(host.workspace)
    host.stop()  # a clean stop removes it again, and it stays removed
    assert host.proc.returncode == 0 and not list(records.glob("*.json"))


def test_a_file_put_where_the_socket_was_is_left_alone_and_said(serve) -> None:
    """Not the host's to remove: it says why it cannot be reached, and once the path is free
    again it makes its socket there."""
    host = serve(BASH_TAB)
    sock = Path(host.env["TIKI_SOCKET"])
    sock.unlink()
    sock.write_text("my notes\n")
    said = wait_until(lambda: "socket lost" in (log := host.run("log").stdout) and log, 10, 0.1,
                      what="the host to say it lost its socket")
    assert f"`kill {host.proc.pid}`" in said and sock.read_text() == "my notes\n", said
    sock.unlink()
    wait_until(lambda: host.run("terminal-list").returncode == 0, 10, 0.1, what="the host reachable again")


@contextmanager
def started_at_once(env: dict[str, str], workspace: Path, count: int = 3) -> Iterator[subprocess.Popen[str]]:
    """`count` hosts started at the same moment on one socket (as `tiki` in several terminals
    at once starts them); yields the one left running once the others stopped, each saying a
    host already runs. All shut down at the end."""
    hosts = [subprocess.Popen([TIKI, "serve", "--workspace", str(workspace)], env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(count)]
    try:
        wait_until(lambda: sum(host.poll() is not None for host in hosts) == count - 1, 60, 0.05,
                   what=f"{count - 1} hosts to stop")
        (winner,) = [host for host in hosts if host.poll() is None]
        for host in hosts:
            if host is not winner:
                assert "already running" in host.stderr.read(), host.args  # type: ignore[union-attr]
        yield winner
    finally:
        subprocess.run([TIKI, "shutdown"], env=env, capture_output=True, timeout=60)
        for host in hosts:
            host.wait(30)


def test_hosts_started_at_once_leave_one_host_and_its_record_untouched(tiki_env, tmp_path: Path) -> None:
    """`tiki` in two terminals at once starts two background hosts; the one that finds the
    socket taken stops. It used to write its record over the winner's first, and remove it as
    it stopped: the running host had none until it noticed (a crash then could not be restored)."""
    workspace = tmp_path / "ws.toml"
    workspace.write_text(BASH_TAB)
    with started_at_once(tiki_env, workspace) as winner:
        time.sleep(2)  # (a running host looks at its record every second)
        log = subprocess.run([TIKI, "log"], env=tiki_env, capture_output=True, text=True, timeout=60).stdout
        assert "record remade" not in log, log
        record = json.loads(next((Path(tiki_env["TIKI_STATE_DIR"]) / "hosts").glob("*.json")).read_text())
        assert record["pid"] == winner.pid


@pytest.mark.parametrize("ipc", ["unix", "tcp"])
def test_hosts_started_at_once_start_their_tabs_once(tiki_env, tmp_path: Path, ipc: str) -> None:
    """Two terminals opened at once (a session restore), each running `tiki`: every host found
    no host there and started the workspace's tabs -- a restored agent session ran two or three
    times over -- before all but one found the socket taken and ended theirs. Now they take
    turns: only the host that gets the socket starts the tabs."""
    env = dict(tiki_env, TIKI_IPC=ipc)
    marker = tmp_path / "started"
    workspace = tmp_path / "ws.toml"
    workspace.write_text(f'[[tab]]\nname = "job"\ncommand = ["sh", "-c", "echo $$ >> {marker}; exec sleep 100000"]\n')
    with started_at_once(env, workspace):
        assert len(marker.read_text().split()) == 1, marker.read_text()
        listed = subprocess.run([TIKI, "terminal-list", "--json"], env=env, capture_output=True, text=True, timeout=60)
        assert [tab["name"] for tab in json.loads(listed.stdout)["terminals"]] == ["job"], listed.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_tiki_in_a_terminal_attaches_again_to_the_host_whose_socket_was_removed(tiki_env, tmp_path: Path) -> None:
    """The path a user takes: the real `tiki` in tmux, detached, the runtime directory wiped,
    `tiki` again -- the same host and the same shell, not a new host with a fresh one."""
    from tmux_outer import Outer

    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", BASH_TAB)
        outer.literal("w0", "echo same-shell-$((6*7))")
        outer.keys("w0", "Enter")
        outer.wait("w0", "same-shell-42")
        pid = json.loads(subprocess.run([TIKI, "status", "--json"], env=tiki_env, capture_output=True, text=True,
                                        timeout=60).stdout)["host"]["pid"]
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        shutil.rmtree(Path(tiki_env["TIKI_SOCKET"]).parent)
        outer.clear("w0")
        outer.tiki("w0")
        outer.wait("w0", "same-shell-42")  # (the shell's own screen: the host kept it)
        assert hosts_running(tiki_env) == [pid]
    finally:
        outer.close()


def test_a_crashed_hosts_pid_now_another_host_does_not_stop_a_new_one(serve, tiki_env, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Pids are reused: the record a crashed host left on one socket may name a pid that is,
    by now, a host serving another socket. That is no host of this socket to wait for: a new
    host starts (it refused, naming the other host's pid)."""
    from tikitaka.protocol import paths

    other = serve(BASH_TAB, dict(tiki_env, TIKI_SOCKET=tiki_env["TIKI_SOCKET"] + "2"))
    here = Path(tiki_env["TIKI_SOCKET"])
    monkeypatch.setenv("TIKI_STATE_DIR", tiki_env["TIKI_STATE_DIR"])
    record = paths.host_record(here)  # (where a host on `here` looks)
    record.write_text(json.dumps({"pid": other.proc.pid, "socket": str(here), "workspace": str(other.workspace)}))
    long_ago = time.time() - 3600  # (written by the crashed host, before the pid's new owner started)
    os.utime(record, (long_ago, long_ago))
    host = serve(BASH_TAB)  # (fails if `tiki serve` exits)
    assert host.run("terminal-list").returncode == 0
