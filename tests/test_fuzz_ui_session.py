"""A UI session fed fuzzed messages (issue 8's hostile clients, on the UI protocol of issue 13):
every message type with wrong, missing, huge and hostile fields, and quick ops through `call`.
The session stays attached, each bad message is answered with an error that names the fault
(none is an internal failure), and the host's services stay healthy.

TIKI_FUZZ_UI=20000 runs the long version by hand; CI runs a seeded few thousand.
"""

from __future__ import annotations

import os
import queue
import random
from pathlib import Path
from typing import Any

from conftest import BASH_TAB, event_log, wait_until
from ipc_helpers import request

from tikitaka.app.ui_client import UiClient
from tikitaka.protocol import ops, ui

CAT_TAB = BASH_TAB + '[[tab]]\nname = "cat"\ncommand = ["cat"]\n'
ODD = [0, 1, -1, 2**31, 2**63, 10**30, 1.5, "", "x", "\x00", "é\u202e", None, True, [], {}, [1, 2], {"a": 1}, "sh",
       1000, 500, 10_000, 10_001, "\x1b[201~", "z" * 5000]
FIELDS = ["tab", "text", "b64", "action", "x", "y", "button", "mods", "cols", "rows", "ref", "offset", "start", "screen",
          "request_id", "decision", "op", "args", "more", "fg", "bg"]
OPS = ["terminal.list", "terminal.read", "terminal.cells", "host.info", "terminal.send", "terminal.key",
       "bot.chat", "agent.status", "log.tail", "host.ping", "terminal.wait", "no.such.op"]


def message(rng: random.Random, tabs: list[int]) -> dict[str, Any]:
    """One message: a random type (or none known), random fields, and often a plausible shape."""
    kind = rng.choice([*ui.UP, "bogus"])
    out: dict[str, Any] = {"t": kind}
    for field in rng.sample(FIELDS, rng.randrange(0, 6)):
        out[field] = rng.choice(ODD)
    if rng.random() < 0.6:
        out["tab"] = rng.choice([*tabs, 999, 0])
    if kind == "call" and rng.random() < 0.7:
        out.update(op=rng.choice(OPS), ref=rng.randrange(1, 10**6), args=rng.choice(
            [{}, {"name": "sh"}, {"name": "cat", "text": "fuzzed"}, {"name": "x" * 300}, {"name": "sh", "lines": -1},
             {"name": "sh", "keys": ["ctrl+c", "nope"]}, []]))
    elif kind == "scrollback" and rng.random() < 0.7:
        out.update({"ref": rng.randrange(1, 10**6), "rows": rng.choice([1, 5, 10_000]),
                    rng.choice(["offset", "start"]): rng.choice([0, 5, 10**9])})
        if rng.random() < 0.3:
            out["screen"] = True
    elif kind == "resize" and rng.random() < 0.7:
        out.update(cols=rng.choice([2, 3, 80, 1000]), rows=rng.choice([1, 24, 500]))
    elif kind == "mouse" and rng.random() < 0.7:
        out.update(action=rng.choice(["press", "release", "move", "wheel_up", "wheel_down", "x"]),
                   x=rng.choice([0, 5, 999_999]), y=rng.choice([0, 5, 999_999]), button=rng.choice([0, 1, 2, 99, -1]))
    elif kind == "paste" and rng.random() < 0.7:
        out.update(text=rng.choice(["", "abc", "\x1b[201~evil", "x" * 5000]), more=rng.choice([True, False]))
    return out


def test_a_ui_session_fed_fuzzed_messages_stays_attached_and_healthy(serve):
    host = serve(CAT_TAB)
    count = int(os.environ.get("TIKI_FUZZ_UI", "3000"))
    events: queue.Queue[dict[str, Any]] = queue.Queue()
    closed: list[str] = []
    client = UiClient(Path(host.env["TIKI_SOCKET"]), client="fuzz")
    hello = client.connect(80, 24)
    client.start(events.put, closed.append)
    tabs = [tab["id"] for tab in hello["tabs"]]
    rng = random.Random(20261206)
    for _ in range(count):
        assert client.send(message(rng, tabs)), closed
    client.call(ops.TERMINAL_LIST, {}, events.put)
    seen: list[dict[str, Any]] = []
    # (the last message is a call whose reply comes after every answer before it)
    wait_until(lambda: any(e.get("kind") == "reply" and e.get("ok") and "terminals" in e.get("result", {})
                           for e in _drain(events, seen)), 30, 0.05, what="the session to answer its last call")
    assert closed == [], closed  # still attached
    errors = [e["message"] for e in seen if e.get("kind") == "error"]
    assert errors and all(isinstance(text, str) and text for text in errors)
    internal = [text for text in errors if "failed: " in text or "did not answer" in text]
    assert internal == [], internal[:5]
    replies = [e for e in seen if e.get("kind") == "reply" and not e.get("ok")]
    assert not [r for r in replies if r["error"]["code"] == "internal"], replies[:5]
    client.close()
    info = request(host.env, "host.info")["result"]
    failing = {name: h for name, h in info["health"].items() if h["state"] != "ok" or h["failures"]}
    assert failing == {}, failing
    log = event_log(host.env).read_text() if event_log(host.env).exists() else ""
    assert "internal_error" not in log, [line for line in log.splitlines() if "internal_error" in line][:3]
    assert request(host.env, "terminal.list")["ok"] is True


def _drain(events: queue.Queue[dict[str, Any]], into: list[dict[str, Any]]) -> list[dict[str, Any]]:
    while True:
        try:
            into.append(events.get_nowait())
        except queue.Empty:
            return into
