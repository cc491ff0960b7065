"""The command line as a script writer uses it: bad argument values are usage errors (exit 2,
naming the option as typed), as the README's exit codes promise and as `tiki log --last 0`
already does."""

from __future__ import annotations

import pytest
from conftest import BASH_TAB


@pytest.mark.parametrize("args, option", [
    (("terminal-read", "sh", "--lines", "0"), "--lines"),
    (("terminal-read", "sh", "--lines", "-5"), "--lines"),
    (("terminal-wait", "sh", "--timeout-ms", "0"), "--timeout-ms"),
    (("terminal-wait", "sh", "--idle-ms", "0"), "--idle-ms"),
])
def test_an_out_of_range_option_is_a_usage_error(serve, args, option):
    """`tiki terminal-read sh --lines 0` exits 1 ("the host refused or failed") with
    `bad arguments for terminal.read: 'lines' must be ...` -- the protocol's op and field
    names, not the option typed -- while `--lines abc` and `tiki log --last 0` exit 2.
    A script cannot tell its own mistake from a host that refused."""
    host = serve(BASH_TAB)
    result = host.run(*args)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert option in result.stderr, result.stderr


def test_an_empty_new_name_is_a_usage_error(serve):
    host = serve(BASH_TAB)
    result = host.run("terminal-rename", "sh", "")
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "terminal.rename" not in result.stderr, result.stderr


def test_a_working_directory_that_is_a_file_is_called_so(serve, tmp_path):
    """`terminal-new x --cwd FILE` said "no such directory" of a file that is there."""
    host = serve(BASH_TAB)
    note = tmp_path / "notes.txt"
    note.write_text("mine\n")
    result = host.run("terminal-new", "x", "--cwd", str(note))
    assert result.returncode != 0 and "not a directory" in result.stderr, result.stderr
    assert note.read_text() == "mine\n"


@pytest.mark.parametrize("typed, fix", [
    (("--command", "codex"), "tiki terminal-new ai -- codex"),
    (("codex", "--full-auto"), "tiki terminal-new ai -- codex --full-auto"),
    (("--cmd", "vim notes.txt"), "tiki terminal-new ai -- vim notes.txt"),
])
def test_a_command_given_without_the_dashes_is_shown_how_to_give_it(tiki_env, typed, fix):
    """`tiki terminal-new ai --command codex` (what `--help` of other tools teaches) said only
    "unrecognized arguments: --command codex": the tab's command goes after `--`, and the error
    now shows the line that would have worked. A usage error (exit 2), before any host."""
    import subprocess

    from conftest import TIKI

    result = subprocess.run([TIKI, "terminal-new", "ai", *typed], env=tiki_env, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert fix in result.stderr, result.stderr
