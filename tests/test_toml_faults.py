"""A TOML file of ours that is binary, or nests deeper than tomllib goes, is named with what is
wrong wherever it is read -- config.toml and a workspace by a real `tiki serve`, a rules file by
the rulebook -- never a traceback (both crashed the host's start with one)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import TIKI

from tikitaka.terminals.agent_state_model import AgentRulesError
from tikitaka.terminals.agent_state_rules import load_rulebook, user_dir

BINARY = b"\xff\xfe[tab]\n"
DEEP = b"a = " + b"[" * 100_000
FAULTS = [(BINARY, "is not UTF-8 text (byte 0: invalid start byte)"),
          (DEEP, "is not valid TOML for us: its arrays or tables nest too deeply")]


def serve(env: dict[str, str], workspace: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, "serve", "--workspace", str(workspace)], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("content", "words"), FAULTS, ids=["binary", "deep"])
def test_a_broken_workspace_or_config_stops_the_host_with_a_sentence(tiki_env, tmp_path, content, words):
    workspace = tmp_path / "ws.toml"
    workspace.write_bytes(content)
    result = serve(tiki_env, workspace)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"workspace {workspace} {words}" in result.stderr
    workspace.write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    config = Path(tiki_env["TIKI_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(content)
    result = serve(tiki_env, workspace)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{config} {words}" in result.stderr


@pytest.mark.parametrize(("content", "words"), FAULTS, ids=["binary", "deep"])
def test_a_broken_rules_file_is_named(tmp_path, monkeypatch, content, words):
    monkeypatch.setenv("TIKI_CONFIG_DIR", str(tmp_path))
    rules = user_dir()
    rules.mkdir(parents=True)
    (rules / "claude.toml").write_bytes(content)
    with pytest.raises(AgentRulesError) as error:
        load_rulebook()
    assert f"{rules / 'claude.toml'} {words}" in str(error.value)
