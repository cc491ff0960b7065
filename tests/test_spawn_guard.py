"""A tab's command, working directory and environment are checked before anything is forked,
and nothing the child runs between fork and exec can turn it into a second host (issue 8,
item 5: one lone surrogate in `terminal.new` wedged the host for good)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import BASH_TAB
from term_helpers import raw_request

# The IPC layer refuses a frame holding a lone surrogate before any op sees it; the spawn
# guard behind it (for callers inside the host) is checked directly by SPAWN_SNIPPET below.
SURROGATE_REFUSED = "lone surrogate"
BAD_FRAMES = {
    # JSON-escaped, as a raw client can send them; the CLI itself cannot produce these.
    "surrogate-arg": (rb'{"id":"x","op":"terminal.new","args":{"name":"bad","command":["echo","ok","\ud800"]}}',
                      SURROGATE_REFUSED),
    "surrogate-cmd": (rb'{"id":"x","op":"terminal.new","args":{"name":"bad","command":["ec\udfffho"]}}',
                      SURROGATE_REFUSED),
    "nul-arg": (rb'{"id":"x","op":"terminal.new","args":{"name":"bad","command":["echo","a\u0000b"]}}',
                "argument 1 contains a NUL character"),
}


def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    if int(stat.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, ValueError):
                pass
    return kids


@pytest.mark.parametrize("case", sorted(BAD_FRAMES))
def test_bad_spawn_text_is_refused_and_the_host_still_shuts_down(serve, case):
    frame, expected = BAD_FRAMES[case]
    host = serve(BASH_TAB)
    serve_pid = host.proc.pid
    try:
        reply = raw_request(host.env["TIKI_SOCKET"], frame, timeout=10)
        assert reply["ok"] is False, reply
        assert expected in reply["error"]["message"], reply
        # The host still answers, and no tab was half-created.
        listing = host.json("terminal-list")
        assert [t["name"] for t in listing["terminals"]] == ["sh"]
        host.run("terminal-send", "sh", "echo still-$((40+2))")
        host.wait_text("sh", "still-42")
        # No forked copy of the host is left behind as a child.
        kids = [k for k in _children(serve_pid) if b"serve" in open(f"/proc/{k}/cmdline", "rb").read()]
        assert kids == [], f"forked copies of the host survive: {kids}"
        started = time.monotonic()
        done = host.run("shutdown", timeout=20)
        assert done.returncode == 0, done.stderr
        host.proc.wait(15)
        assert time.monotonic() - started < 15
    finally:
        for kid in _children(serve_pid):  # on the old code: the wedged copy of the host
            try:
                os.kill(kid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if host.proc.poll() is None:
            host.proc.kill()


SPAWN_SNIPPET = r"""
import sys
from tikitaka.terminals.pty import SpawnError, spawn
env = {"PATH": "/usr/bin:/bin", "BAD": "x\ud800y"}
for argv, kwargs in ((["true"], {"cwd": "/tmp/\ud800"}), (["true"], {"cwd": None, "env": env}),
                     (["echo", "ok", "\ud800"], {"cwd": None})):
    kwargs.setdefault("env", {"PATH": "/usr/bin:/bin"})
    try:
        spawn(argv, cols=80, rows=24, **kwargs)
    except SpawnError as exc:
        print("refused:", exc)
    else:
        print("spawned")
sys.exit(0)
"""


def test_bad_argv_cwd_and_environment_are_refused_before_fork():
    # In a subprocess: on code without the check, the fork would run a copy of the caller.
    result = subprocess.run([sys.executable, "-c", SPAWN_SNIPPET], capture_output=True, text=True, timeout=20)
    assert result.stdout.count("refused:") == 3 and "spawned" not in result.stdout, (result.stdout, result.stderr)
    assert "argument 2 is not valid text (lone surrogate U+D800" in result.stdout
    assert "the working directory is not valid text (lone surrogate U+D800" in result.stdout
    assert "environment variable 'BAD' is not valid text (lone surrogate" in result.stdout


def test_exec_failure_after_fork_is_a_clear_error():
    # A file that is executable but not a program: exec fails in the child, which must exit
    # (127) and report why, not carry on as a copy of the caller.
    snippet = r"""
import os, stat, sys, tempfile
from tikitaka.terminals.pty import SpawnError, spawn
path = os.path.join(tempfile.mkdtemp(), "notaprogram")
open(path, "wb").write(b"\x7fELF garbage")
os.chmod(path, 0o755)
try:
    spawn([path], cwd=None, env={"PATH": "/usr/bin:/bin"}, cols=80, rows=24)
except SpawnError as exc:
    print("refused:", exc)
    sys.exit(0)
print("spawned")
"""
    result = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=20)
    assert result.stdout.count("refused:") == 1, (result.stdout, result.stderr)
    assert "Exec format error" in result.stdout


def test_a_failure_in_the_child_before_exec_exits_it():
    # The working directory is checked before the fork, so make the child's chdir fail by
    # going under that check: the child must report and _exit(127), never run on as a copy
    # of its parent (which would print a second line here).
    snippet = r"""
import os, sys
from tikitaka.terminals.pty import SpawnError
from tikitaka.terminals.pty_fork import fork_exec
try:
    fork_exec("/bin/true", ["true"], cwd="/etc/passwd", env={}, cols=80, rows=24)
except SpawnError as exc:
    print("refused:", exc, "pid", os.getpid())
else:
    print("spawned", os.getpid())
"""
    result = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=20)
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("refused: cannot enter the working directory /etc/passwd: Not a directory"), (
        result.stdout, result.stderr)
