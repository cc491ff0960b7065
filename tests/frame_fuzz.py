"""A seeded generator of malformed IPC frames and a runner that counts the host's replies.

Used by tests/test_fuzz_frames.py (a few thousand frames in CI) and by hand for the 10,000
frame figure:  python tests/frame_fuzz.py 10000   (against a host in TIKI_SOCKET).
Frames never ask for anything destructive: no shutdown, no valid `agent.ask`, tabs are only
created with commands that do not exist, typing goes to a `cat` tab.
"""

from __future__ import annotations

import concurrent.futures
import json
import random
import socket
import time
from typing import Any, Iterator

from ipc_helpers import connect, final_reply, read_all

SAFE_TAB = "cat"
SLOW_GAP = 0.3  # seconds between pieces of a slow (but in-time) frame


def _junk(rng: random.Random, size: int | None = None) -> str:
    size = rng.randint(0, 40) if size is None else size
    alphabet = "abcXYZ019 _-./\\\"'{}[]:,\t\u00e9\u4e2d\U0001f600\x00\x7f"
    return "".join(rng.choice(alphabet) for _ in range(size))


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 2**64, 10**30, rng.randint(-10**6, 10**6)])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e-308, float("inf"), float("nan")])
    if kind in (4, 5, 6):
        return _junk(rng)
    if kind == 7:
        return rng.choice([SAFE_TAB, "nope", "", "x" * 41, "bad name"])
    if kind in (8, 9):
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {_junk(rng, rng.randint(0, 8)): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _args(rng: random.Random, op: str) -> Any:
    """Arguments for `op`: mostly wrong, sometimes nearly right, never destructive."""
    if rng.random() < 0.2:
        return _value(rng)  # any type at all
    args = {k: _value(rng) for k in rng.sample(["name", "lines", "text", "keys", "idle_ms", "timeout_ms",
                                                 "command", "cwd", "role", "new_name", "message", "from",
                                                 "last", "enter", "prompt", "run_id"], rng.randint(0, 4))}
    if op in ("terminal.send", "terminal.key", "terminal.read", "terminal.wait") and rng.random() < 0.5:
        args["name"] = SAFE_TAB
    if op == "terminal.wait":
        args["timeout_ms"] = rng.randint(1, 200)
    if op == "terminal.key" and rng.random() < 0.5:
        args["keys"] = rng.choice([["a"], ["enter"], ["ctrl+q"], ["f13"], [], "enter", [1]])
    if op == "terminal.new":  # a name that may be valid, a command that never exists
        args["name"] = rng.choice(["fz" + str(rng.randint(0, 10**6)), _junk(rng)])
        args["command"] = rng.choice([["zz-no-such-cmd-" + _junk(rng, 4)], "ls", [], [1, 2], {"a": 1}])
    if op == "terminal.close" or op == "terminal.rename" or op == "terminal.restart":
        args["name"] = rng.choice(["nope", _junk(rng), 7])
    if op == "agent.ask":
        args["prompt"] = rng.choice([None, 5, [], {}, ""])
    return args


def _deep(depth: int, rng: random.Random) -> str:
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * depth + "1" + closer * depth


def frames(rng: random.Random, ops: list[str], count: int, big: int = 3) -> Iterator[tuple[bytes, str]]:
    """(payload, mode) pairs; mode: plain | nonl (no newline) | slow | tooslow."""
    ops = [op for op in ops if op != "host.shutdown"]
    for index in range(count):
        kind = rng.randrange(20)
        mode = "plain"
        if kind < 8:  # a known op with bad arguments, bad field types or odd ids
            body: dict[str, Any] = {"op": rng.choice(ops), "args": _args(rng, "")}
            body["args"] = _args(rng, body["op"])
            if rng.random() < 0.3:
                body["id"] = _value(rng)
            if rng.random() < 0.2:
                body["token"] = _value(rng)
            if rng.random() < 0.1:
                body["op"] = _value(rng)
            payload = json.dumps(body).encode()
        elif kind == 8:
            payload = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        elif kind == 9:  # bad UTF-8 inside a frame
            payload = b'{"op": "host.ping", "id": "' + rng.choice([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf8\x88"]) + b'"}'
        elif kind == 10:  # lone surrogates, escaped, in every field
            field = rng.choice(["id", "op", "name", "token", "key"])
            s = rng.choice(["\\ud800", "\\udfff", "a\\udc80b", "\\ud83d"])
            payload = {
                "id": f'{{"id": "{s}", "op": "host.ping"}}',
                "op": f'{{"op": "{s}"}}',
                "name": f'{{"op": "terminal.read", "args": {{"name": "{s}"}}}}',
                "token": f'{{"op": "bot.chat", "token": "{s}", "args": {{"message": "m", "from": "{s}"}}}}',
                "key": f'{{"op": "terminal.new", "args": {{"name": "fz", "command": ["{s}"], "{s}": 1}}}}',
            }[field].encode()
        elif kind == 11:  # nesting
            where = rng.choice(["top", "args", "id"])
            deep = _deep(rng.choice([50, 999, 1000, 1500, 5000, 20000]), rng)
            payload = {"top": deep, "args": f'{{"op": "host.ping", "args": {{"x": {deep}}}}}',
                       "id": f'{{"op": "host.ping", "id": {deep}}}'}[where].encode()
        elif kind == 12:  # huge numbers
            digits = "9" * rng.choice([4300, 4301, 5000, 100_000])
            payload = rng.choice([f'{{"op": "host.ping", "id": {digits}}}',
                                  f'{{"op": "terminal.read", "args": {{"name": "cat", "lines": {digits}}}}}',
                                  f'{{"op": "log.tail", "args": {{"last": -{digits}}}}}',
                                  f'{{"op": "host.ping", "args": {{"x": 1e{digits}}}}}']).encode()
        elif kind == 13:  # not an object, or an empty line
            payload = rng.choice([b"", b"[]", b"null", b"42", b'"op"', b"true", b"NaN", b"{", b"}", b"{}"])
        elif kind == 14:  # long values echoed back in errors
            long = _junk(rng, 1000) * rng.choice([1, 100, 900])
            payload = rng.choice([json.dumps({"op": long}), json.dumps({"op": "terminal.read", "args": {"name": long}}),
                                  json.dumps({"id": long, "op": "nope"})]).encode()
        elif kind == 15 and big > 0:  # over the request limit
            big -= 1
            payload = b'{"op": "host.ping", "args": {"x": "' + b"y" * (1024 * 1024 + 10) + b'"}}'
        elif kind == 16:
            payload = json.dumps({"op": rng.choice(ops), "args": _args(rng, "")}).encode()
            mode = "nonl"
        elif kind == 17:
            payload = json.dumps({"op": "host.ping", "id": index}).encode()
            mode = "slow"
        elif kind == 18 and index % 50 == 0:
            payload = b'{"op": "host.ping"}'
            mode = "tooslow"
        else:  # several lines in one connection, or junk after the frame
            payload = json.dumps({"op": "host.ping"}).encode() + b"\n" + _junk(rng).encode("utf-8", "surrogatepass")
        if mode in ("plain", "slow", "tooslow"):
            payload += b"\n" if mode == "plain" else b""
        yield payload, mode


def send_one(env: dict[str, str], payload: bytes, mode: str) -> tuple[str, dict[str, Any] | None]:
    try:
        conn = connect(env, 30.0)
    except OSError as exc:
        return f"connect failed: {exc}", None
    try:
        try:
            if mode == "slow":
                step = max(1, len(payload) // 3)
                pieces = [payload[i:i + step] for i in range(0, len(payload), step)] + [b"\n"]
                for piece in pieces:
                    conn.sendall(piece)
                    time.sleep(SLOW_GAP)
            elif mode == "tooslow":
                for byte in payload:
                    conn.sendall(bytes([byte]))
                    time.sleep(1.0)
            else:
                conn.sendall(payload)
            if mode != "tooslow":
                conn.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the host answered early (oversized, too slow): its reply is still readable
        reply = final_reply(read_all(conn))
        return ("ok" if reply is not None else "no reply"), reply
    finally:
        conn.close()


def run(env: dict[str, str], ops: list[str], count: int, seed: int = 8, workers: int = 24) -> dict[str, Any]:
    rng = random.Random(seed)
    batch = list(frames(rng, ops, count))
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        outcomes = list(pool.map(lambda frame: send_one(env, *frame), batch))
    failures = [(batch[i][0][:120], batch[i][1], what) for i, (what, _) in enumerate(outcomes) if what != "ok"]
    return {"frames": len(batch), "json_replies": sum(1 for what, _ in outcomes if what == "ok"),
            "ok_true": sum(1 for _, reply in outcomes if reply and reply.get("ok") is True),
            "seconds": round(time.monotonic() - started, 1), "failures": failures[:10]}


def known_ops(env: dict[str, str]) -> list[str]:
    from ipc_helpers import request

    reply = request(env, "no.such.op")
    return reply["error"]["message"].split("known ops: ", 1)[1].split(", ")


if __name__ == "__main__":  # pragma: no cover - the by-hand 10,000 frame run
    import os
    import sys

    env = dict(os.environ)
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print(json.dumps(run(env, known_ops(env), total, seed=int(sys.argv[2]) if len(sys.argv) > 2 else 8), indent=1))
