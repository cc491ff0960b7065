"""`tiki ask` progress a person can follow (issue 10): on a terminal one status line updated in
place, the kept lines above it; piped, plain lines with a heartbeat while the model is silent."""

from __future__ import annotations

import os
import select
import subprocess
import time

from conftest import BASH_TAB, TIKI
from fake_ollama import Reply


def test_on_a_terminal_the_status_line_updates_in_place(serve, fake_env, fake):
    env = {**fake_env, "COLUMNS": "100"}
    serve(BASH_TAB, env=env)  # the host the CLI below talks to
    words = Reply.action("done", message="took a while").chunks
    fake.script(Reply.action("list_terminals"), Reply(chunks=[c for w in words for c in w], delay=0.05))
    master, slave = os.openpty()
    try:
        ask = subprocess.Popen([TIKI, "ask", "what", "tabs?"], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=slave, text=True)
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 60
        while ask.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
        out, _ = ask.communicate(timeout=10)
    finally:
        os.close(master)
    text = seen.decode("utf-8", "replace")
    assert out == "took a while\n"
    assert "\r\x1b[Kturn 2 · generating" in text and "tok/s" in text  # redrawn in place, not scrolled
    assert text.count("\r\x1b[Kturn 2 · generating") >= 3  # several updates of the same line
    assert "\r\x1b[K→ list_terminals {}\r\n" in text  # a kept line: the status cleared, the line printed
    assert "done · 2 turns ·" in text and "\x1b[K" in text.split("done · 2 turns")[0][-10:]


def test_piped_progress_has_a_heartbeat_while_the_model_is_silent(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply(chunks=Reply.action("done", message="finally").chunks, first_delay=7))
    result = host.run("ask", "slow one", timeout=60)
    assert result.returncode == 0 and result.stdout == "finally\n"
    lines = result.stderr.splitlines()
    assert lines[0].startswith("run ") and " started; `tiki cancel " in lines[0]  # its id, to cancel it by
    assert lines[1].startswith("turn 1 · reading prompt ")
    assert any(line.endswith("· still working") for line in lines), lines  # within the 7 s of silence
    assert "\r" not in result.stderr and "\x1b[" not in result.stderr  # plain lines for a log
    assert lines[-1].startswith("done · 1 turn · ")
