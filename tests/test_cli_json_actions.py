"""`--json` on every command that talks to the host: what the host answered for the op, as one
JSON object on stdout and nothing else there (no sentence for a person), checked against the
op's reply schema in `protocol/ops.py`; a failure is `{"error": {...}}` on stdout, with the exit
code it always had. The real `tiki` binary against a real host."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import BASH_TAB, TIKI
from fake_ollama import Reply

from tikitaka.protocol import ops, schema

CODEX = json.dumps([sys.executable, str(Path(__file__).parent / "standins" / "codex_standin.py"), "--speed", "0.8"])
CODEX_TAB = f'[[tab]]\nname = "Codex"\ncommand = {CODEX}\nrole = "peer"\n'


def answer(result: subprocess.CompletedProcess[str], op: ops.Op | None = None) -> dict:
    """The command's stdout as the one JSON object it must be, checked against `op`'s reply."""
    assert result.returncode == 0, (result.args, result.stdout, result.stderr)
    body = json.loads(result.stdout)  # the whole of stdout: no human line beside it
    if op is not None:
        schema.check(op.reply, body, where=f"{op.name} reply")
    return body


def error(result: subprocess.CompletedProcess[str], exit_code: int = 1) -> dict:
    """The failure as `{"error": {...}}`, one line on stdout, with its exit code."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == exit_code, (result.args, result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    body = json.loads(lines[0])["error"]
    said = body["message"].split(": ", 1)[-1] if exit_code == 2 else body["message"]  # (argparse: "tiki x: error: ...")
    assert body["exit"] == exit_code and said in result.stderr, (body, result.stderr)
    return body


def test_tab_commands_print_the_hosts_answer(serve):
    host = serve(BASH_TAB + CODEX_TAB)
    shell = ["bash", "--norc", "--noprofile", "-i"]
    opened = answer(host.run("terminal-new", "two", "--role", "shell", "--json", "--", *shell), ops.TERMINAL_NEW)
    assert (opened["name"], opened["role"], opened["command"], opened["running"]) == ("two", "shell", shell, True)

    sent = answer(host.run("terminal-send", "two", "echo json-$((6*7))", "--json"), ops.TERMINAL_SEND)
    assert (sent["name"], sent["ok"], sent["delivery"], sent["queued_ms"]) == ("two", True, "delivered", 0)
    host.wait_text("two", "json-42")
    waited = answer(host.run("terminal-wait", "two", "--idle-ms", "200", "--json"), ops.TERMINAL_WAIT)
    assert waited["name"] == "two" and waited["idle"] is True and isinstance(waited["waited_ms"], int)
    keys = answer(host.run("terminal-key", "two", "ctrl+c", "--json"), ops.TERMINAL_KEY)
    assert keys["name"] == "two" and len(keys["sent"]) == 1

    renamed = answer(host.run("terminal-rename", "two", "deux", "--json"), ops.TERMINAL_RENAME)
    assert renamed["name"] == "deux" and renamed["id"] == opened["id"]
    restarted = answer(host.run("terminal-restart", "deux", "--json"), ops.TERMINAL_RESTART)
    assert restarted["name"] == "deux" and restarted["running"] is True
    assert answer(host.run("terminal-close", "deux", "--json"), ops.TERMINAL_CLOSE) == {"closed": "deux"}

    # into a working agent, --no-wait: the host's answer says "queued", with no "queued for Codex" line
    idle = answer(host.run("terminal-wait", "Codex", "--until", "idle", "--timeout-ms", "10000", "--json"),
                  ops.TERMINAL_WAIT)
    assert (idle["name"], idle["state"]) == ("Codex", "idle") and idle["reason"]
    assert host.run("terminal-send", "Codex", "first task").returncode == 0
    assert host.run("terminal-wait", "Codex", "--until", "working", "--timeout-ms", "5000").returncode == 0
    queued = host.run("terminal-send", "Codex", "later task", "--no-wait", "--json")
    assert answer(queued, ops.TERMINAL_SEND)["delivery"] == "queued"

    for args in (["terminal-close", "nosuch"], ["terminal-rename", "nosuch", "other"], ["terminal-restart", "nosuch"],
                 ["terminal-send", "nosuch", "hi"], ["terminal-key", "nosuch", "enter"],
                 ["terminal-wait", "nosuch", "--idle-ms", "50"]):
        body = error(host.run(*args, "--json"))
        assert body["code"] == "unknown_tab" and body["tabs"] == ["sh", "Codex"], (args, body)
    body = error(host.run("terminal-new", "sh", "--json"))  # a name taken
    assert body["code"] != "usage" and "sh" in body["message"]
    assert error(host.run("terminal-key", "sh", "--json"), 2)["code"] == "usage"  # no KEY: argparse's

    # without --json, the sentences as before
    assert host.run("terminal-new", "three").stdout.startswith("opened three (shell): ")
    assert host.run("terminal-close", "three").stdout == "closed three\n"


def test_chat_cancel_reset_and_shutdown(serve, tiki_env, tmp_path):
    host = serve(BASH_TAB)
    chatted = answer(host.run("bot-chat", "DONE(42)", "--from", "tester", "--json"), ops.BOT_CHAT)
    assert (chatted["from"], chatted["verified"], chatted["verified_by"], chatted["text"]) == ("tester", False, None, "42")
    assert "no tab is named 'tester'" in chatted["note"]
    assert error(host.run("bot-chat", "hello", "--json"), 2)["code"] == "usage"  # --from required outside a tab

    assert answer(host.run("cancel", "--json"), ops.AGENT_CANCEL) == {"cancelled": False}
    assert answer(host.run("reset", "--json"), ops.AGENT_RESET) == {"reset": True}

    assert answer(host.run("shutdown", "--json"), ops.HOST_SHUTDOWN) == {"stopping": True}
    assert host.proc.wait(15) == 0  # and it did stop
    assert error(host.run("shutdown", "--json"), 3)["code"] == "no_host"
    assert error(host.run("cancel", "--json"), 3)["code"] == "no_host"
    assert answer(host.run("shutdown", "--all", "--json")) == {"hosts": []}


def test_shutdown_all_lists_each_host_with_its_answer(serve):
    host = serve(BASH_TAB)
    stopped = answer(host.run("shutdown", "--all", "--json"))
    assert stopped == {"hosts": [{"socket": host.env["TIKI_SOCKET"], "pid": host.proc.pid,
                                  "workspace": str(host.workspace), "stopping": True}]}
    assert host.proc.wait(15) == 0


def test_ask_prints_the_runs_final_result(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("list_terminals"), Reply.action("done", message="one tab: sh"))
    result = host.run("ask", "what", "tabs?", "--json")
    done = answer(result)
    assert (done["kind"], done["message"], done["turns"]) == ("done", "one tab: sh", 2) and done["run_id"]
    assert "→ list_terminals" in result.stderr  # progress stays on stderr
    fake.script(Reply.action("done", message="quiet"))
    quiet = host.run("ask", "-q", "--json", "again")
    assert answer(quiet)["message"] == "quiet" and quiet.stderr == ""
    # a run that fails: `{"error": ...}` with the run's final event (its id, its reason)
    fake.script(Reply(status=404, error="model not found"))
    body = error(host.run("ask", "-q", "--json", "hi"))
    assert body["kind"] == "error" and body["run_id"] and "ollama pull" in body["reason"], body
    assert body["code"] == "refused" and body["message"] == f"the coordinator did not finish: {body['reason']}"


def test_doctor_prints_its_checks(tiki_env, fake):
    result = subprocess.run([TIKI, "doctor", "--json"], env={**tiki_env, "OLLAMA_HOST": fake.url}, capture_output=True,
                            text=True, timeout=60)
    checks = answer(result)["checks"]
    assert {check["name"]: check["status"] for check in checks}.items() >= {
        "pty": "ok", "socket": "ok", "ollama": "ok", "model": "ok", "embedded": "info"}.items()
    assert all(set(check) == {"status", "name", "detail"} and check["detail"] for check in checks)
    missing = subprocess.run([TIKI, "doctor", "--json"], env={**tiki_env, "OLLAMA_HOST": fake.url, "TIKI_MODEL": "nope:1b"},
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1  # a failed check: exit 1, and the checks are still the output
    model = next(check for check in json.loads(missing.stdout)["checks"] if check["name"] == "model")
    assert model["status"] == "FAIL" and "ollama pull nope:1b" in model["detail"]
