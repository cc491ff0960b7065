"""A tab's reader learns the moment its child's output pauses (`PosixPty.output_within`): how
a flood's last screen is sent at once rather than at the next jump-scroll frame."""

from __future__ import annotations

import os
import sys
import time

import pytest

from tikitaka.terminals.pty import spawn

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX PTYs")


def test_output_within_says_whether_output_comes_and_never_takes_it():
    pty = spawn(["bash", "--norc", "--noprofile", "-c", "printf one; sleep 0.5; printf two; sleep 60"],
                cwd=None, env=dict(os.environ), cols=80, rows=24)
    try:
        assert pty.output_within(10)  # type: ignore[attr-defined]
        assert pty.read() == b"one"
        assert not pty.output_within(0.05)  # type: ignore[attr-defined]  # sleeping: a pause
        assert pty.output_within(10)  # type: ignore[attr-defined]
        assert pty.output_within(0)  # type: ignore[attr-defined]  # (looking did not take it)
        assert pty.read() == b"two"
        pty.kill()
        assert pty.output_within(10)  # type: ignore[attr-defined]  # closed: `read` says so
        assert pty.read() == b""
    finally:
        pty.kill()


def _until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_the_foreground_group_says_when_a_job_the_shell_ran_has_ended():
    """The reader ends a flood's pause at once when the job that printed it hands the terminal
    back to the shell (`cat big.log` done, the prompt next): no more of its output can come."""
    pty = spawn(["bash", "--norc", "--noprofile"], cwd=None, env={**os.environ, "PS1": "$ "}, cols=80, rows=24)
    try:
        assert _until(lambda: pty.foreground_group() == pty.pid)  # type: ignore[attr-defined]  # at its prompt
        pty.write(b"sleep 60\r")
        assert _until(lambda: pty.foreground_group() not in (None, pty.pid))  # type: ignore[attr-defined]
        job = pty.foreground_group()  # type: ignore[attr-defined]
        assert os.getpgid(job) == job  # the job's own group, not the shell's
        # The group is in front from the fork on; a Ctrl+C before the exec reaches bash's own
        # handler in the child, and `sleep` then runs on (seen once in CI): wait for the exec.
        if sys.platform.startswith("linux"):
            assert _until(lambda: open(f"/proc/{job}/comm").read().strip() == "sleep")
        pty.write(b"\x03")  # Ctrl+C ends it: the shell takes its terminal back
        assert _until(lambda: pty.foreground_group() == pty.pid)  # type: ignore[attr-defined]
        pty.kill()
        assert pty.foreground_group() is None  # type: ignore[attr-defined]  # gone: nothing to ask
    finally:
        pty.kill()
