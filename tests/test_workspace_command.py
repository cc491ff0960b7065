"""A tab's `command` in a workspace may be written as one string, as it would be typed in a
shell (`command = "claude --resume"`): the host splits it into words the way a POSIX shell does
(quotes keep spaces together), and a save leaves the string as the user wrote it. Before, the
whole string was taken as the name of one program: "command not found: claude --resume"."""

from __future__ import annotations

import subprocess

from conftest import TIKI, wait_until
from harness import Host

ONE_LINE = '''[[tab]]
name = "sh"
command = "bash --norc --noprofile -c 'printf \\"%s|\\\\n\\" \\"two words\\" three; exec cat'"
'''


def test_a_command_written_as_one_string_runs_split_into_words(tiki_env, tmp_path):
    workspace = tmp_path / "tiki.toml"
    workspace.write_text(ONE_LINE)
    host = Host(tiki_env, workspace, tmp_path)
    try:
        shown = host.wait_text("sh", "three|")
        assert "two words|" in shown, shown  # one argument, its space kept
        listed = host.json("terminal-list")["terminals"][0]
        assert listed["running"] and listed["command"] == [
            "bash", "--norc", "--noprofile", "-c", 'printf "%s|\\n" "two words" three; exec cat'], listed
        # A tab added and saved: the string stays as the user wrote it.
        assert host.run("terminal-new", "more", "--", "cat").returncode == 0
        wait_until(lambda: 'name = "more"' in workspace.read_text(), what="the new tab saved")
        assert workspace.read_text().startswith(ONE_LINE), workspace.read_text()
        # Renamed: its table is found by the words it runs, and only the name changes.
        assert host.run("terminal-rename", "sh", "words").returncode == 0
        wait_until(lambda: 'name = "words"' in workspace.read_text(), what="the rename saved")
        assert workspace.read_text().startswith(ONE_LINE.replace('"sh"', '"words"')), workspace.read_text()
    finally:
        host.stop()


def test_a_string_with_an_open_quote_is_refused_naming_the_tab_and_the_fix(tiki_env, tmp_path):
    workspace = tmp_path / "tiki.toml"
    workspace.write_text('[[tab]]\nname = "ai"\ncommand = "claude --append-system-prompt \'be brief"\n')
    done = subprocess.run([TIKI, "serve", "--workspace", str(workspace)], env=tiki_env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    said = done.stderr
    assert "tab #1" in said and "quot" in said and '["claude", "--append-system-prompt"' in said, said
