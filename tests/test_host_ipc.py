"""The host's socket: bad requests, concurrency, bot-chat verification and the event log."""

from __future__ import annotations

import concurrent.futures
import json
import os
import socket
import stat
import subprocess

from conftest import BASH_TAB, TIKI, sigstop, wait_until


def raw_request(path: str, payload: bytes) -> dict:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(20)
    conn.connect(path)
    try:
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    conn.close()
    return json.loads(data.splitlines()[-1])


def test_socket_permissions(serve):
    host = serve(BASH_TAB)
    path = host.env["TIKI_SOCKET"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700


def test_garbage_oversized_and_unknown_requests_get_errors(serve):
    host = serve(BASH_TAB)
    path = host.env["TIKI_SOCKET"]
    cases = {
        b"this is not json\n": "not JSON",
        b"[1, 2, 3]\n": "JSON object",
        b'{"args": {}}\n': "'op'",
        b'{"op": "no.such.op"}\n': "unknown op",
        b'{"op": "terminal.read", "args": {"name": 5}}\n': "'name'",
        b'{"op": "terminal.read", "args": {"name": "sh", "lines": "many"}}\n': "'lines'",
        b"\xff\xfe\n": "UTF-8",
        b'{"op": "terminal.read", "args": {"name": "' + b"x" * (2 * 1024 * 1024) + b'"}}\n': "limit",
    }
    for payload, needle in cases.items():
        reply = raw_request(path, payload)
        assert reply["ok"] is False and needle in reply["error"]["message"], (payload[:40], reply)
    assert raw_request(path, b'{"id": "q1", "op": "host.ping"}\n') == {
        "id": "q1", "ok": True, "result": {"pong": True, "pid": host.proc.pid}}
    # a client that connects and says nothing, or hangs up at once, hurts nobody
    socket.socket(socket.AF_UNIX).connect(path)
    assert host.run("terminal-list").returncode == 0


def test_live_host_refused_and_stale_socket_replaced(serve, tiki_env, tmp_path):
    host = serve(BASH_TAB)
    second = subprocess.run([TIKI, "serve", "--workspace", str(host.workspace)], env=tiki_env,
                            capture_output=True, text=True, timeout=30)
    assert second.returncode == 1 and "already running" in second.stderr
    host.proc.kill()  # dies without cleaning up: its socket file stays behind
    host.proc.wait(5)
    assert os.path.exists(tiki_env["TIKI_SOCKET"])
    again = serve(BASH_TAB)
    assert again.run("terminal-list").returncode == 0


def test_bot_chat_from_outside_is_unverified_and_unwrapped(serve):
    host = serve(BASH_TAB)
    result = host.run("bot-chat", "DONE(42, obviously (really))", "--from", "tester")
    assert result.returncode == 0 and "unverified" in result.stdout
    # (delivered all the same -- a script may speak for itself -- but a misspelt tab is named)
    assert "no tab is named 'tester' (tabs: sh)" in result.stdout, result.stdout
    as_tab = host.run("bot-chat", "from outside, as the shell", "--from", "SH")
    assert as_tab.returncode == 0 and "unverified" in as_tab.stdout and "no tab" not in as_tab.stdout
    missing = host.run("bot-chat", "hello")
    assert missing.returncode == 2 and "--from" in missing.stderr
    log = host.run("log", "--json")
    entries = [json.loads(line) for line in log.stdout.splitlines()]
    chat = [e for e in entries if e["kind"] == "bot_chat"]
    assert chat[-2]["sender"] == "tester" and chat[-2]["text"] == "42, obviously (really)"
    assert chat[-2]["verified"] is False


def test_tab_cannot_speak_as_another_tab(serve):
    host = serve(BASH_TAB + '[[tab]]\nname = "Claude"\ncommand = ["bash", "--norc"]\nrole = "peer"\n')
    host.run("terminal-send", "sh", 'tiki bot-chat "hi" --from Claude; echo "spoof-rc=$?"')
    text = host.wait_text("sh", "spoof-rc=1")
    assert "can only speak as itself" in text
    host.run("terminal-send", "sh", 'tiki bot-chat "DONE(from the shell)"; echo "own-rc=$?"')
    host.wait_text("sh", "own-rc=0")
    lines = host.run("log").stdout.splitlines()
    assert any("[sh] from the shell" in line and "unverified" not in line for line in lines)
    assert not any("[Claude] hi" in line for line in lines)


def test_ten_senders_ten_messages_each_keep_their_order(serve):
    host = serve(BASH_TAB)

    def sender(index: int) -> list[int]:
        codes = []
        for seq in range(10):
            codes.append(host.run("bot-chat", f"msg {seq}", "--from", f"s{index}").returncode)
        return codes

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        codes = [c for batch in pool.map(sender, range(10)) for c in batch]
    assert codes == [0] * 100
    entries = [json.loads(line) for line in host.run("log", "--json").stdout.splitlines()]
    chats = [e for e in entries if e["kind"] == "bot_chat"]
    assert len(chats) == 100
    for index in range(10):
        mine = [e["text"] for e in chats if e["sender"] == f"s{index}"]
        assert mine == [f"msg {seq}" for seq in range(10)]
    last = host.run("log", "--last", "3").stdout.splitlines()
    assert len(last) == 3


def test_shutdown_removes_socket(serve, tiki_env):
    host = serve(BASH_TAB)
    assert host.run("shutdown").returncode == 0
    host.proc.wait(15)
    assert host.proc.returncode == 0
    wait_until(lambda: not os.path.exists(tiki_env["TIKI_SOCKET"]), what="socket removed")


def test_loopback_tcp_endpoint_with_a_secret(serve, tiki_env):
    """What Windows uses (no Unix sockets there), forced here with TIKI_IPC=tcp."""
    env = {**tiki_env, "TIKI_IPC": "tcp"}
    host = serve(BASH_TAB, env=env)
    path = env["TIKI_SOCKET"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    info = json.loads(open(path).read())
    assert set(info) == {"port", "auth"}

    def tcp_request(payload: bytes) -> dict:
        conn = socket.create_connection(("127.0.0.1", info["port"]), timeout=10)
        try:
            conn.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused early: the answer is still there to read
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        conn.close()
        return json.loads(data)

    ping = json.dumps({"op": "host.ping"}).encode() + b"\n"
    refused = tcp_request(ping)
    assert refused["ok"] is False and "secret" in refused["error"]["message"]
    # the secret is checked first: a wrong one is refused before a large request is read
    huge = json.dumps({"op": "host.ping", "args": {"x": "y" * 3_000_000}}).encode() + b"\n"
    wrong = tcp_request(b"AUTH not-the-secret\n" + huge)
    assert wrong["ok"] is False and "secret" in wrong["error"]["message"]
    assert tcp_request(f"AUTH {info['auth']}\n".encode() + ping)["ok"] is True
    assert host.run("terminal-list").returncode == 0
    host.run("terminal-send", "sh", 'tiki bot-chat "DONE(over tcp)"; echo "tcp-rc=$?"')
    host.wait_text("sh", "tcp-rc=0")
    host.stop()
    assert not os.path.exists(path)


def test_a_host_still_stopping_never_removes_the_next_hosts_socket(serve, tiki_env):
    """`tiki shutdown` then `tiki` at once: the old host, still ending a tab that ignores
    SIGTERM, must not delete the socket the new host listens on (it did: the new host ran on,
    unreachable, and every `tiki` after it started yet another)."""
    import signal

    old = serve(BASH_TAB)
    old.run("terminal-send", "sh", "trap '' HUP TERM; echo stubborn; sleep 1000")
    old.wait_text("sh", "\nstubborn")
    assert old.run("shutdown").returncode == 0
    wait_until(lambda: not os.path.exists(tiki_env["TIKI_SOCKET"]), what="the old socket gone")
    sigstop(old.proc.pid)  # held in the middle of its stop, ending the tab
    try:
        new = serve(BASH_TAB)
    finally:
        os.kill(old.proc.pid, signal.SIGCONT)
    old.proc.wait(20)
    assert new.run("terminal-list").returncode == 0, "the new host is unreachable"
    assert os.path.exists(tiki_env["TIKI_SOCKET"])


def test_a_tcp_host_never_takes_over_a_file_that_is_not_an_endpoint(tiki_env, tmp_path):
    """With TIKI_IPC=tcp the socket path names a file; one that is not a tikitaka endpoint
    file (a user's notes, a typo'd path) is refused and kept, never overwritten or removed."""
    notes = tmp_path / "notes.txt"
    notes.write_text("important\n")
    os.chmod(notes, 0o600)
    env = {**tiki_env, "TIKI_IPC": "tcp", "TIKI_SOCKET": str(notes)}
    result = subprocess.run([TIKI, "serve"], env=env, capture_output=True, text=True, timeout=30,
                            stdin=subprocess.DEVNULL)
    assert result.returncode != 0
    assert "not a tikitaka endpoint file" in result.stderr and str(notes) in result.stderr, result.stderr
    assert notes.read_text() == "important\n"
