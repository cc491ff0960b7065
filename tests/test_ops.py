"""The op table (`protocol/ops.py`) is the one description of the wire: every op has exactly one
handler and a caller, requests are checked against it, real replies match it, and the command
line's fast path stays fast."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BASH_TAB
from ipc_helpers import request

from tikitaka.protocol import ops, schema

ROOT = Path(__file__).resolve().parent.parent


def test_every_op_has_one_handler_and_a_missing_one_fails_at_import(monkeypatch):
    from tikitaka.actors import host
    from tikitaka.actors.ipc.handlers import tabs

    assert set(host.HANDLERS) == set(ops.OPS)
    trimmed = dict(tabs.HANDLERS)
    del trimmed[ops.TERMINAL_WAIT]
    monkeypatch.setattr(tabs, "HANDLERS", trimmed)
    with pytest.raises(RuntimeError, match="ops without a handler: terminal.wait"):
        host.handler_table()


def test_every_op_has_a_caller_that_uses_it():
    from tikitaka.app.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    sources = "\n".join(p.read_text() for p in (ROOT / "app").rglob("*.py"))
    for op in ops.OPS.values():
        command = op.callers.removeprefix("tiki ").split()[0]
        assert op.callers.startswith("tiki ") and command in commands, (op.name, op.callers)
        constant = next(name for name, value in vars(ops).items() if value is op)
        assert f"ops.{constant}" in sources, f"{op.name}: no command builds a request from ops.{constant}"


def test_bad_arguments_are_refused_before_any_handler_runs(serve):
    host = serve(BASH_TAB)
    for op, args, expected in [
        ("terminal.read", {"name": "sh", "lines": 0}, "'lines' must be an integer from 1 to 10000"),
        ("terminal.read", {"name": "sh", "line": 5}, "unknown argument 'line' (arguments: name, lines)"),
        ("terminal.send", {"name": "sh"}, "'text' is required"),
        ("terminal.send", {"name": "sh", "text": "x", "enter": "yes"}, "'enter' must be true or false"),
        ("terminal.new", {"name": "x", "role": "robot"}, "'role' must be one of 'peer', 'shell'"),
        ("terminal.key", {"name": "sh", "keys": []}, "'keys' must be a non-empty list"),
        ("terminal.wait", {"name": "sh", "until": "done"}, "'until' must be one of 'waiting', 'idle', 'exited'"),
        ("bot.chat", {"message": "hi", "from": ""}, "'from' must be a non-empty string"),
        ("host.ping", {"verbose": True}, "unknown argument 'verbose' (arguments: none)"),
    ]:
        reply = request(host.env, op, **args)
        assert reply["ok"] is False and reply["error"]["code"] == "bad_request", (op, reply)
        assert expected in reply["error"]["message"], (op, reply["error"]["message"])
    assert [t["name"] for t in host.json("terminal-list")["terminals"]] == ["sh"]  # nothing was created


def test_real_replies_match_their_documented_shape(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo ready-$((1+1))")
    host.wait_text("sh", "ready-2")
    calls = [
        (ops.TERMINAL_LIST, {}), (ops.TERMINAL_READ, {"name": "sh", "lines": 5}),
        (ops.TERMINAL_SEND, {"name": "sh", "text": "echo shape"}), (ops.TERMINAL_KEY, {"name": "sh", "keys": ["up"]}),
        (ops.TERMINAL_CELLS, {"name": "sh"}), (ops.TERMINAL_SEND, {"name": "sh", "text": "x", "literal": True}),
        (ops.TERMINAL_WAIT, {"name": "sh", "idle_ms": 50}), (ops.TERMINAL_WAIT, {"name": "sh", "until": "idle"}),
        (ops.TERMINAL_EXPLAIN, {"name": "sh"}), (ops.TERMINAL_NEW, {"name": "two", "role": "shell"}),
        (ops.TERMINAL_RENAME, {"name": "two", "new_name": "deux"}), (ops.TERMINAL_RESTART, {"name": "deux"}),
        (ops.TERMINAL_CLOSE, {"name": "deux"}), (ops.HOST_PING, {}), (ops.HOST_INFO, {}), (ops.LOG_TAIL, {"last": 3}),
        (ops.BOT_CHAT, {"message": "DONE(shape, checked)", "from": "tester"}), (ops.AGENT_CANCEL, {}),
    ]
    for op, args in calls:
        reply = request(host.env, op.name, **args)
        assert reply["ok"] is True, (op.name, reply)
        schema.check(op.reply, reply["result"], where=f"{op.name} reply")


def test_the_command_line_imports_nothing_heavy():
    code = ("import sys, tikitaka.app.cli as cli; cli.build_parser(); "
            "print([m for m in ('textual', 'ollama', 'httpx', 'pydantic', 'pykka') if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert json.loads(result.stdout.replace("'", '"')) == [], result.stdout + result.stderr


def test_tiki_log_asks_the_running_host_and_reads_the_file_without_one(serve, tiki_env, tmp_path):
    host = serve(BASH_TAB)
    host.run("bot-chat", "from the log test", "--from", "tester")
    elsewhere = {**tiki_env, "TIKI_STATE_DIR": str(tmp_path / "another-state")}  # not the host's file
    live = host.run("log", "--last", "5", env=elsewhere)
    assert live.returncode == 0 and "[tester] (unverified) from the log test" in live.stdout
    host.stop()
    offline = host.run("log", "--last", "5")  # no host: the file the host wrote
    assert offline.returncode == 0 and "from the log test" in offline.stdout
