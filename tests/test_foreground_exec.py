"""The foreground command follows an `exec` at the next look, not REFRESH seconds later: a tab
started as `sh -c '... exec claude'` keeps its process group when sh becomes Claude, and until
the argv was read again it was known only as `sh` (an `unknown` state for up to 2 s)."""

from __future__ import annotations

import os
import sys
import time

import pytest
from conftest import wait_until

from tikitaka.terminals.foreground import LOOK_EVERY, REFRESH, ForegroundCommand
from tikitaka.terminals.pty import spawn

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


def comm(pid: int) -> str:
    with open(f"/proc/{pid}/comm") as handle:
        return handle.read().strip()


def test_an_exec_in_the_foreground_is_seen_at_the_next_look():
    pty = spawn(["sh", "-c", "read line; exec sleep 1000"], cwd=None, env=dict(os.environ), cols=80, rows=24)
    try:
        foreground = ForegroundCommand(pty.pid)
        start = time.monotonic()
        assert os.path.basename(foreground.get(start)[0]) == "sh"
        pty.write(b"go\n")
        wait_until(lambda: comm(pty.pid) == "sleep", 10, 0.01, what="the exec")
        later = start + LOOK_EVERY + 0.01
        assert later - start < REFRESH  # (the argv is not due to be read again on its own yet)
        assert foreground.get(later) == ["sleep", "1000"]
    finally:
        pty.kill()


def test_a_program_that_ended_and_is_not_reaped_yet_is_seen_as_ended():
    """`sh -c 'exec claude'`: when Claude quits, its process is a zombie until the host reaps
    it. Meanwhile the terminal has no foreground group, and the tab's command (a shell) was
    all that named the agent: the tab showed as a shell between Claude's end and its exit
    (seen in CI). `ended` says the program is over before the reaper does."""
    pty = spawn(["sh", "-c", "read line; exec true"], cwd=None, env=dict(os.environ), cols=80, rows=24)
    try:
        foreground = ForegroundCommand(pty.pid)
        start = time.monotonic()
        assert foreground.get(start) and not foreground.ended
        pty.write(b"go\n")
        wait_until(lambda: state(pty.pid) == "Z", 10, 0.01, what="a zombie nobody reaped")
        assert foreground.get(start + LOOK_EVERY + 0.01) == [] and foreground.ended
    finally:
        pty.kill()


def state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()[0]
