"""Fuzzed frames (issue 8, item 6 and "bounded fuzzing"): every frame gets a JSON reply, the
host keeps serving, no thread dies, and a bad client costs at most one log line.

TIKI_FUZZ_FRAMES=10000 runs the long version by hand; CI runs a seeded few thousand.
"""

from __future__ import annotations

import json
import os

from conftest import BASH_TAB
from frame_fuzz import known_ops, run
from ipc_helpers import raw, request

CAT_TAB = BASH_TAB + '[[tab]]\nname = "cat"\ncommand = ["cat"]\n'


def test_each_catalogued_bad_frame_gets_a_json_error(serve):
    host = serve(CAT_TAB)
    env = host.env
    cases = {
        "deep": b'{"op": "host.ping", "args": {"x": ' + b"[" * 5000 + b"]" * 5000 + b"}}\n",
        "deep-top": b"[" * 100_000 + b"\n",
        "huge-int": b'{"op": "terminal.read", "args": {"name": "sh", "lines": ' + b"9" * 5000 + b"}}\n",
        "huge-int-id": b'{"op": "host.ping", "id": ' + b"1" * 4301 + b"}\n",
        "surrogate-id": b'{"id": "\\ud800", "op": "host.ping"}\n',
        "surrogate-name": b'{"op": "terminal.read", "args": {"name": "\\udfff"}}\n',
        "surrogate-argv": b'{"op": "terminal.new", "args": {"name": "x", "command": ["\\ud800"]}}\n',
        "huge-error": json.dumps({"op": "z" * 1_000_000}).encode() + b"\n",
        "huge-name": json.dumps({"op": "terminal.read", "args": {"name": "n" * 1_000_000}}).encode() + b"\n",
    }
    for what, payload in cases.items():
        reply = raw(env, payload)
        assert reply is not None and reply["ok"] is False, (what, reply)
        assert len(json.dumps(reply)) < 64 * 1024, what  # error replies stay small
    assert request(env, "terminal.list")["ok"] is True
    assert "Traceback" not in host.stderr()
    stop = host.run("shutdown")
    assert stop.returncode == 0 and host.proc.wait(15) == 0


def test_seeded_fuzz_every_frame_is_answered(serve):
    host = serve(CAT_TAB)
    count = int(os.environ.get("TIKI_FUZZ_FRAMES", "2500"))
    stats = run(host.env, known_ops(host.env), count)
    print(f"fuzz: {json.dumps({k: v for k, v in stats.items() if k != 'failures'})}")
    assert stats["json_replies"] == stats["frames"], stats["failures"]
    assert request(host.env, "terminal.list")["ok"] is True
    info = request(host.env, "host.info")["result"]
    health = info["health"]
    assert health["ipc.accept"]["state"] == "ok" and health["ipc.accept"]["restarts"] == 0, health
    assert health.get("ipc.connection", {"failures": 0})["failures"] == 0, health
    # at most one log line per bad client: here not even that (nothing failed)
    complaints = [line for line in host.stderr().splitlines() if line.startswith(("tiki host:", "Traceback"))]
    assert complaints == [], complaints[:5]
