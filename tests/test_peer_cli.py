"""`tiki help peer` and `tiki install-skill` work without a host."""

from __future__ import annotations

import subprocess

from conftest import TIKI


def test_help_peer_prints_the_briefing(tiki_env):
    result = subprocess.run([TIKI, "help", "peer"], env=tiki_env, capture_output=True, text=True)
    assert result.returncode == 0
    for command in ("bot-chat", "terminal-list", "terminal-read", "terminal-send", "terminal-key"):
        assert f"tiki {command}" in result.stdout
    assert "Never send to your own tab" in result.stdout and "file" in result.stdout


def test_install_skill_writes_a_claude_skill_and_prints_a_codex_snippet(tiki_env, tmp_path):
    result = subprocess.run([TIKI, "install-skill", "--dir", str(tmp_path)], env=tiki_env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    skill = (tmp_path / ".claude" / "skills" / "tikitaka" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: tikitaka\ndescription:") and "tiki help peer" in skill
    assert "AGENTS.md" in result.stdout and "tiki help peer" in result.stdout.split("AGENTS.md", 1)[1]


def test_output_into_a_closed_pipe_is_not_a_traceback(tiki_env):
    proc = subprocess.Popen([TIKI, "help", "peer"], env=tiki_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before tiki writes a byte (as with `| head` finishing early)
    stderr = proc.stderr.read().decode()
    assert proc.wait(10) == 0 and "Traceback" not in stderr


def test_every_command_says_what_it_does_in_its_own_help(tiki_env):
    """`tiki shutdown --help` showed only its usage line: what a command does was in `tiki
    --help`'s list alone. Each command's own help opens with that line now."""
    listing = subprocess.run([TIKI, "--help"], env=tiki_env, capture_output=True, text=True).stdout
    listed = listing.split("positional arguments:", 1)[1].split("\noptions:")[0]
    commands = [line.split()[0] for line in listed.splitlines() if line.startswith("    ") and line[4] != " "]
    assert {"shutdown", "hosts", "terminal-send", "log", "serve"} <= set(commands), commands
    for command in commands:
        own = subprocess.run([TIKI, command, "--help"], env=tiki_env, capture_output=True, text=True).stdout
        said = listing.split(f"    {command}", 1)[1].split()[:3]  # its first words in the list
        assert " ".join(said) in " ".join(own.split()), (command, own)
