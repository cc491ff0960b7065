"""Connection slots: full slots, clients that hang up at once, drip, idle or abandon waits
must never lock the `tiki` CLI out of its host (issue 8, items 1 and 3)."""

from __future__ import annotations

import concurrent.futures
import socket
import time

from conftest import BASH_TAB
from ipc_helpers import LONG_WAIT, HostileCrowd, connect, final_reply, hold, read_all, request


def test_client_that_hangs_up_while_every_slot_is_busy_does_not_deafen_the_host(serve):
    host = serve(BASH_TAB)
    env = host.env
    held = [hold(env, "terminal.wait", name="sh", **LONG_WAIT) for _ in range(140)]
    try:
        time.sleep(0.5)  # let the host take them all in (justified: nothing is asserted about it)
        for _ in range(5):  # the 129th..: connect and close at once, with and without a request
            connect(env).close()
            abrupt = connect(env)
            abrupt.sendall(b'{"op": "terminal.wait", "args": {"name": "sh", "idle_ms": 3600000}}\n')
            abrupt.close()
        started = time.monotonic()
        listing = host.run("terminal-list", timeout=40)
        assert listing.returncode == 0, listing.stderr
        assert "sh" in listing.stdout and time.monotonic() - started < 12
    finally:
        for conn in held:
            conn.close()
    stop = host.run("shutdown", timeout=40)
    assert stop.returncode == 0, stop.stderr
    assert host.proc.wait(15) == 0


def test_a_dripping_client_is_dropped_at_the_request_deadline(serve):
    host = serve(BASH_TAB)
    conn = connect(host.env)
    started = time.monotonic()
    reply = None
    try:
        for byte in b'{"op": "terminal.list", "args": {}}' * 10:  # one byte every 0.5 s: never done
            if time.monotonic() - started > 15:
                break
            conn.sendall(bytes([byte]))
            conn.settimeout(0.5)
            try:
                data = conn.recv(65536)
            except socket.timeout:
                continue
            reply = final_reply(data + read_all(conn))
            break
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        conn.close()
    took = time.monotonic() - started
    assert reply is not None and reply["ok"] is False, reply
    assert "no complete request" in reply["error"]["message"] and took < 9, (reply, took)


def test_abandoned_waits_give_their_slots_back(serve):
    host = serve(BASH_TAB)
    for _ in range(140):  # ask for hour-long waits and hang up at once
        hold(host.env, "terminal.wait", name="sh", **LONG_WAIT).close()
    time.sleep(1.0)  # the host notices hang-ups within a fraction of a second; this gives it ample time

    def short_wait(_: int) -> dict | None:
        return request(host.env, "terminal.wait", name="sh", idle_ms=1, timeout_ms=20_000)

    with concurrent.futures.ThreadPoolExecutor(100) as pool:
        replies = list(pool.map(short_wait, range(100)))
    assert [r and r["ok"] for r in replies] == [True] * 100, [r for r in replies if not (r and r["ok"])][:3]


def test_two_hundred_hostile_clients_do_not_lock_out_the_cli(serve):
    host = serve(BASH_TAB)
    crowd = HostileCrowd(host.env, "sh", size=200).start()
    timings = []
    started_attack = time.monotonic()
    try:
        time.sleep(2.0)  # let the crowd build up to its 200 clients
        while time.monotonic() - started_attack < 9 or len(timings) < 3:  # past the request deadline
            started = time.monotonic()
            listing = host.run("terminal-list", timeout=30)
            timings.append(round(time.monotonic() - started, 2))
            assert listing.returncode == 0 and "sh" in listing.stdout, (listing.stderr, timings)
            time.sleep(0.5)
    finally:
        crowd.stop()
    print(f"terminal-list under attack: {timings} s; crowd connects {crowd.connects}, "
          f"dropped by the host {crowd.dropped}, waits abandoned {crowd.abandoned}")
    assert max(timings) < 12, timings
    assert crowd.dropped > 0 and crowd.abandoned > 100  # the crowd really was there
    # once they are gone the host serves normally: a hundred waits at once all get a slot
    time.sleep(1.0)
    with concurrent.futures.ThreadPoolExecutor(100) as pool:
        replies = list(pool.map(lambda _: request(host.env, "terminal.wait", name="sh", idle_ms=1), range(100)))
    assert all(r and r["ok"] for r in replies), [r for r in replies if not (r and r["ok"])][:3]
