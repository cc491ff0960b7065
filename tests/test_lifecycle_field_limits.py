"""A host that runs out of file descriptors (each tab holds a few: its PTY, its pidfd, its
threads' wake-ups) says so in words a user can act on, keeps every tab it has, and opens tabs
again once some are closed. Real host under a real RLIMIT_NOFILE, the real CLI."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from conftest import BASH_TAB, TIKI, wait_until

LIMIT = 90


def test_a_host_out_of_file_descriptors_says_so_and_recovers(tiki_env, tmp_path: Path) -> None:
    workspace = tmp_path / "ws.toml"
    workspace.write_text(BASH_TAB)
    limited = (f"import os, resource; resource.setrlimit(resource.RLIMIT_NOFILE, ({LIMIT}, {LIMIT})); "
               f"os.execv({TIKI!r}, [{TIKI!r}, 'serve', '--workspace', {str(workspace)!r}])")
    host = subprocess.Popen([sys.executable, "-c", limited], env=tiki_env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def tiki(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TIKI, *args], env=tiki_env, capture_output=True, text=True, timeout=60)

    try:
        wait_until(lambda: tiki("terminal-list").returncode == 0, 20, 0.1, what="the host")
        refused = None
        for n in range(60):  # (each tab takes a few descriptors: the limit comes within ~25)
            opened = tiki("terminal-new", f"t{n}", "--", "bash", "--norc", "--noprofile")
            if opened.returncode != 0:
                refused = opened
                break
        assert refused is not None, "the limit never came"
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] > LIMIT  # (the test's own limit is not the cause)
        said = refused.stderr
        assert refused.returncode == 1 and "file descriptors" in said and f"({LIMIT})" in said, said
        assert "ulimit -n" in said and "Errno" not in said, said
        listed = tiki("terminal-list")
        assert listed.returncode == 0 and f"t{n - 1} " in listed.stdout, listed
        assert tiki("terminal-close", "t0").returncode == 0
        again = tiki("terminal-new", "again", "--", "bash", "--norc", "--noprofile")
        assert again.returncode == 0, again.stderr
    finally:
        tiki("shutdown")
        host.wait(30)
