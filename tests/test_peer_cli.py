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
