"""Field bugs of `tiki ask` and `tiki status`, through the real binary against `tiki serve`
with the model faked: a queued ask says at once what it waits behind (and how to drop it),
idle status claims no current run, a corrupt GGUF is the user's error, and an answer's
control characters cannot drive the user's terminal."""

from __future__ import annotations

import os
import queue
import re
import select
import subprocess
import threading
import time

from conftest import BASH_TAB, TIKI, peer, wait_until
from fake_ollama import Reply


def lines_of(proc: subprocess.Popen) -> "queue.Queue[str]":
    """The process's stderr, line by line, as it comes."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return lines


def line_with(lines: "queue.Queue[str]", pattern: str, timeout: float = 20) -> re.Match:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
    raise AssertionError(f"no line matching {pattern!r} in {seen}")


def test_a_queued_ask_says_at_once_whom_it_waits_behind_and_cancel_drops_it(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply(chunks=['{"tool": "wait", "args": {}}'], stall_after=0, stall_for=60))  # a long run
    first = subprocess.Popen([TIKI, "ask", "summarise", "the", "long", "build", "log"], env=fake_env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = None
    try:
        first_id = line_with(lines_of(first), r"^run (\w+) started")[1]  # its id, to cancel it by
        wait_until(lambda: host.json("status")["coordinator"]["state"] == "running", what="the first run")
        second = subprocess.Popen([TIKI, "ask", "list terminals please"], env=fake_env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        match = line_with(lines_of(second), r"^queued behind run (\w+) \((.*)\); `tiki cancel (\w+)` drops it$")
        assert match[1] == first_id and "summarise the long build log" in match[2]
        assert host.json("status")["coordinator"]["state"] == "running"  # said while the first still runs
        cancel = host.run("cancel", match[3])
        assert cancel.returncode == 0 and f"run {match[3]} will not start" in cancel.stdout
        assert second.wait(15) == 1  # at once: not when the run ahead ends
        assert first.poll() is None and host.json("status")["coordinator"]["state"] == "running"
    finally:
        host.run("cancel")
        for proc in (first, second):
            if proc is not None:
                proc.communicate(timeout=30)


def test_idle_status_claims_no_current_run(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("list_terminals"), Reply.action("done", message="one tab"))
    assert host.run("ask", "-q", "what tabs?").stdout == "one tab\n"
    status = host.run("status")
    line = next(line for line in status.stdout.splitlines() if line.startswith("coordinator:"))
    assert line.startswith("coordinator: idle, 0 queued") and "current run" not in line, line
    assert host.json("status")["coordinator"]["turns"] == 0  # no current run, no turns in it


def test_a_corrupt_gguf_is_a_user_error_naming_the_file(serve, tiki_env, tmp_path):
    gguf = tmp_path / "not-a-model.gguf"
    gguf.write_text("this is a text file, not a model\n" * 40)
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text(f'[coordinator]\nbackend = "embedded"\ngguf_path = "{gguf}"\n')
    host = serve(BASH_TAB, env=tiki_env)
    result = host.run("ask", "-q", "hello", timeout=120)
    assert result.returncode == 1
    assert "internal error" not in result.stderr and str(gguf) in result.stderr, result.stderr
    assert "gguf_path" in result.stderr and "config.toml" in result.stderr  # and how to fix it
    health = host.json("status")["health"]
    assert not any(h["failures"] for name, h in health.items() if name.startswith("coordinator")), health


ANSWER = "hi \x1b]0;pwned\x07\x1b[2Jthere\x9b31m\nsecond\tline"


def test_an_answers_control_characters_do_not_reach_a_terminal(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("done", message=ANSWER), Reply.action("done", message=ANSWER))
    master, slave = os.openpty()
    try:
        ask = subprocess.Popen([TIKI, "ask", "-q", "say hi"], env=fake_env, stdin=subprocess.DEVNULL, stdout=slave,
                               stderr=subprocess.PIPE)
        os.close(slave)
        seen = b""
        while True:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            elif ask.poll() is not None:
                break
        assert ask.wait(10) == 0
    finally:
        os.close(master)
    shown = seen.decode("utf-8", "replace").replace("\r\n", "\n")
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown, repr(shown)
    assert shown == "hi \\x1b]0;pwned\\x07\\x1b[2Jthere\\x9b31m\nsecond\tline\n"  # visible, and lines kept
    piped = host.run("ask", "-q", "say hi")  # to a file or a pipe: the answer as it is
    assert piped.stdout == ANSWER + "\n"


def test_an_answer_that_skipped_the_named_peer_says_so_beside_it(serve, fake_env, fake):
    """A small model answers "ask Claude ..." itself, and again after being told once: the
    answer is printed (stdout stays the answer alone) and stderr says Claude was never asked,
    with --quiet too; an answer that did ask says nothing of the kind."""
    host = serve(BASH_TAB + peer("Claude", "--delay", "0.2"), env=fake_env)
    host.wait_text("Claude", "stand-in ready")
    fake.script(Reply.action("done", message="42"), Reply.action("done", message="42, surely"))
    skipped = host.run("ask", "-q", "ask Claude what 6 times 7 is")
    assert skipped.returncode == 0 and skipped.stdout == "42, surely\n"
    assert skipped.stderr == "tiki: Claude was never asked: the answer is the coordinator's own\n"
    fake.script(Reply.action("done", message="hello"))
    plain = host.run("ask", "-q", "say hello")
    assert plain.returncode == 0 and plain.stdout == "hello\n" and plain.stderr == ""
