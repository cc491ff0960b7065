"""The runtime directory and endpoint files against another local user (issue 8, item 4).

Tests run as one user, so "another user" is simulated the way it would look from here: a
directory with mode 0777 or group-writable, one owned by uid 65534 (when running as root), a
symlink planted where the TCP endpoint file goes.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from conftest import BASH_TAB, TIKI, wait_until


def _serve(env: dict[str, str], tmp_path) -> subprocess.CompletedProcess[str]:
    """`tiki serve` expected to refuse at once (a timeout means it started: a failure)."""
    workspace = tmp_path / "w.toml"
    workspace.write_text(BASH_TAB)
    return subprocess.run([TIKI, "serve", "--workspace", str(workspace)], env=env, capture_output=True,
                          text=True, timeout=20, stdin=subprocess.DEVNULL)


@pytest.fixture
def default_env(tiki_env):
    """No TIKI_SOCKET and no XDG_RUNTIME_DIR: the `$TMPDIR/tikitaka-UID` fallback is used."""
    tmpdir = tempfile.mkdtemp(prefix="tkd-")
    env = {k: v for k, v in tiki_env.items() if k not in ("TIKI_SOCKET", "XDG_RUNTIME_DIR")}
    env["TMPDIR"] = tmpdir
    yield env, os.path.join(tmpdir, f"tikitaka-{os.getuid()}")
    subprocess.run(["rm", "-rf", tmpdir])


@pytest.mark.parametrize("squat", ["world-writable", "group-writable", "other-owner"])
def test_squatted_runtime_directory_is_refused(default_env, tmp_path, squat):
    env, runtime = default_env
    os.mkdir(runtime)
    if squat == "world-writable":
        os.chmod(runtime, 0o777)
    elif squat == "group-writable":
        os.chmod(runtime, 0o770)
    else:
        if os.getuid() != 0:
            pytest.skip("needs root to give the directory to another uid")
        os.chmod(runtime, 0o700)
        os.chown(runtime, 65534, 65534)
    mode_before = stat.S_IMODE(os.stat(runtime).st_mode)
    result = _serve(env, tmp_path)
    assert result.returncode != 0 and "ready" not in result.stderr
    assert runtime in result.stderr and "TIKI_SOCKET" in result.stderr, result.stderr
    assert stat.S_IMODE(os.stat(runtime).st_mode) == mode_before  # not "fixed" behind the user's back
    assert os.listdir(runtime) == []
    # the CLI will not talk to whatever listens there either
    squatter = socket.socket(socket.AF_UNIX)
    squatter.bind(os.path.join(runtime, "tiki.sock"))
    squatter.listen(5)
    squatter.settimeout(0.5)
    cli = subprocess.run([TIKI, "bot-chat", "secret stuff", "--from", "me"], env=env, capture_output=True,
                         text=True, timeout=20)
    assert cli.returncode == 3 and runtime in cli.stderr, cli.stderr
    with pytest.raises(socket.timeout):
        squatter.accept()  # positive control below shows accept() would have seen a connection
    probe = socket.socket(socket.AF_UNIX)
    probe.connect(os.path.join(runtime, "tiki.sock"))
    squatter.accept()[0].close()
    probe.close()
    squatter.close()


def test_fresh_runtime_directory_is_created_private(default_env, serve, tmp_path):
    env, runtime = default_env
    host = serve(BASH_TAB, env=env)
    assert stat.S_IMODE(os.stat(runtime).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(os.path.join(runtime, "tiki.sock")).st_mode) == 0o600
    assert host.run("terminal-list").returncode == 0


@pytest.mark.parametrize("mode", [0o755, 0o1777])
def test_a_directory_tikitaka_did_not_create_keeps_its_mode(tiki_env, serve, mode):
    shared = tempfile.mkdtemp(prefix="tks-")
    os.chmod(shared, mode)
    try:
        env = {**tiki_env, "TIKI_SOCKET": os.path.join(shared, "x.sock")}
        host = serve(BASH_TAB, env=env)
        assert host.run("terminal-list").returncode == 0
        assert stat.S_IMODE(os.stat(shared).st_mode) == mode
        host.stop()
    finally:
        subprocess.run(["rm", "-rf", shared])


def test_planted_symlink_never_receives_the_tcp_secret(tiki_env, serve, tmp_path):
    private = tempfile.mkdtemp(prefix="tkt-")
    try:
        endpoint = os.path.join(private, "ep")
        bait = tmp_path / "attacker-readable"
        bait.write_text("")
        os.symlink(bait, endpoint + ".tmp")
        env = {**tiki_env, "TIKI_IPC": "tcp", "TIKI_SOCKET": endpoint}
        host = serve(BASH_TAB, env=env)
        assert host.run("terminal-list").returncode == 0
        assert bait.read_text() == ""
        assert not os.path.islink(endpoint) and stat.S_IMODE(os.lstat(endpoint).st_mode) == 0o600
        assert set(json.loads(open(endpoint).read())) == {"port", "auth"}
        host.stop()
        # a symlink at the endpoint itself is refused, not written through
        os.symlink(bait, endpoint)
        result = _serve(env, tmp_path)
        assert result.returncode != 0 and "symlink" in result.stderr and bait.read_text() == ""
    finally:
        subprocess.run(["rm", "-rf", private])


def test_a_planted_or_foreign_lock_file_is_refused_and_never_written_through(tiki_env, tmp_path):
    """Hosts starting on one socket take turns on `<socket>.lock` beside it: a symlink planted
    there is not followed, and one owned by someone else (who could hold it for ever) is named."""
    shared = tempfile.mkdtemp(prefix="tkl-")
    os.chmod(shared, 0o1777)  # (like /tmp: others may create files in it)
    try:
        sock = os.path.join(shared, "x.sock")
        env = {**tiki_env, "TIKI_SOCKET": sock}
        bait = tmp_path / "victim"
        bait.write_text("keep me\n")
        os.symlink(bait, sock + ".lock")
        result = _serve(env, tmp_path)
        assert result.returncode != 0 and "symlink" in result.stderr and f"rm {sock}.lock" in result.stderr
        assert bait.read_text() == "keep me\n" and not os.path.exists(sock)
        if os.getuid() == 0:
            os.unlink(sock + ".lock")
            Path(sock + ".lock").write_text("")
            os.chown(sock + ".lock", 65534, 65534)
            result = _serve(env, tmp_path)
            assert result.returncode != 0 and "belongs to another user" in result.stderr, result.stderr
    finally:
        subprocess.run(["rm", "-rf", shared])


def _hold_turn(sock: Path) -> int:
    """Take the turn a starting host takes (as one starting now would); closing the fd frees it."""
    import fcntl

    sock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(str(sock) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _serve_waiting(env: dict[str, str], workspace: Path, sock: Path) -> subprocess.Popen[str]:
    """`tiki serve`, once it waits for its turn (it has the turn's file open)."""
    host = subprocess.Popen([TIKI, "serve", "--workspace", str(workspace)], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def opened(fd: Path) -> str:
        try:
            return os.readlink(fd)
        except OSError:  # (closed between the listing and the look: the host is starting)
            return ""

    def waiting() -> bool:
        fds = Path(f"/proc/{host.pid}/fd")
        return any(opened(fds / name) == str(sock) + ".lock" for name in os.listdir(fds))

    try:
        wait_until(waiting, 30, 0.05, what="the host to wait for its turn")
    except BaseException:
        host.kill()
        host.wait(30)
        raise
    return host


def test_a_host_waits_its_turn_while_another_is_starting(tiki_env, tmp_path):
    """While the lock is held (another host starting its tabs), `tiki serve` waits -- no tab of
    its own yet, no socket -- and starts once the turn is free."""
    workspace = tmp_path / "w.toml"
    marker = tmp_path / "started"
    workspace.write_text(f'[[tab]]\nname = "job"\ncommand = ["sh", "-c", "echo x >> {marker}; exec sleep 100000"]\n')
    sock = Path(tiki_env["TIKI_SOCKET"])
    fd = _hold_turn(sock)
    host = _serve_waiting(tiki_env, workspace, sock)
    try:
        time.sleep(1.0)  # (were it not waiting, its tab would start and its socket listen meanwhile)
        assert host.poll() is None and not marker.exists() and not sock.exists()
        os.close(fd)
        wait_until(lambda: marker.exists() and sock.exists(), 30, 0.05, what="the host to start after its turn")
        listed = subprocess.run([TIKI, "terminal-list"], env=tiki_env, capture_output=True, text=True, timeout=30)
        assert listed.returncode == 0 and "job" in listed.stdout, listed.stderr
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
        host.wait(30)


def test_a_socket_bound_but_not_yet_listening_is_not_taken_for_a_leftover(tiki_env, tmp_path):
    """A host starting now has bound its socket and not yet called listen(): to a look from
    outside it is a dead host's leftover, and a host starting beside it removed it (the first
    then ran on out of reach). Nothing is looked at before the turn: the second host waits, then
    finds the first listening, and refuses."""
    workspace = tmp_path / "w.toml"
    workspace.write_text(BASH_TAB)
    sock = Path(tiki_env["TIKI_SOCKET"])
    fd = _hold_turn(sock)
    first = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    first.bind(str(sock))
    mine = os.stat(sock).st_ino
    host = _serve_waiting(tiki_env, workspace, sock)
    try:
        time.sleep(0.5)
        assert os.stat(sock).st_ino == mine
        first.listen(8)
        os.close(fd)
        _, stderr = host.communicate(timeout=30)
        assert host.returncode != 0 and "already running" in stderr, stderr
        assert os.stat(sock).st_ino == mine
    finally:
        first.close()
        if host.poll() is None:
            host.kill()
            host.wait(30)
