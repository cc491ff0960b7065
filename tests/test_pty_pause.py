"""A tab's reader learns the moment its child's output pauses (`PosixPty.output_within`): how
a flood's last screen is sent at once rather than at the next jump-scroll frame."""

from __future__ import annotations

import os
import sys

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
