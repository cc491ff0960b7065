"""Verified identity a sibling cannot forge (issue 8): on Linux the host asks the kernel who
called (peer credentials) and maps the caller's controlling terminal to a tab; the tab token
is the check only where that is unavailable (TCP mode, Windows)."""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import BASH_TAB

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="peer credentials: Linux")

TWO_TABS = BASH_TAB + '[[tab]]\nname = "B"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\nrole = "peer"\n'


def _token_of(host, tab: str) -> str:
    host.run("terminal-send", tab, 'echo "TOK=${TIKI_TAB_TOKEN}="')
    text = host.wait_text(tab, "TOK=", lines=20)
    return re.search(r"TOK=([A-Za-z0-9_-]{20,})=", text).group(1)


def _chats(host) -> list[dict]:
    entries = [json.loads(line) for line in host.run("log", "--json").stdout.splitlines()]
    return [e for e in entries if e["kind"] == "bot_chat"]


def test_a_tab_cannot_speak_with_another_tabs_token(serve):
    host = serve(TWO_TABS)
    token_b = _token_of(host, "B")
    host.run("terminal-send", "sh", f'TIKI_TAB_TOKEN={token_b} tiki bot-chat "borrowed"; echo "rc1=$?"')
    host.wait_text("sh", "rc1=0")
    host.run("terminal-send", "sh", f'TIKI_TAB_TOKEN={token_b} tiki bot-chat "spoof" --from B; echo "rc2=$?"')
    text = host.wait_text("sh", "rc2=1")
    assert "can only speak as itself" in text
    host.run("terminal-send", "sh", 'setsid -w tiki bot-chat "detached"; echo "rc3=$?"')
    host.wait_text("sh", "rc3=0")
    # as an AI CLI running commands in a pty of its own would (Gemini CLI, Codex)
    host.run("terminal-send", "sh", f"script -qec 'TIKI_TAB_TOKEN={token_b} tiki bot-chat nested' /dev/null; "
                                    'echo "rc4=$?"')
    host.wait_text("sh", "rc4=0")
    chats = {e["text"]: e for e in _chats(host)}
    assert "spoof" not in chats
    assert chats["borrowed"]["sender"] == "sh" and chats["borrowed"]["verified_by"] == "pty"
    # a process that left the tab's terminal (setsid) is still traced to the tab that started it
    assert chats["detached"]["sender"] == "sh" and chats["detached"]["verified_by"] == "pty"
    assert chats["nested"]["sender"] == "sh" and chats["nested"]["verified_by"] == "pty"


def test_a_stolen_token_outside_any_tab_is_not_enough(serve):
    host = serve(TWO_TABS)
    token_b = _token_of(host, "B")
    env = {**host.env, "TIKI_TAB_TOKEN": token_b, "TIKI_TAB": "B"}
    result = host.run("bot-chat", "DONE(handshake-ok)", env=env)
    assert result.returncode == 0 and "unverified" in result.stdout, result.stdout + result.stderr
    inside = host.run("terminal-send", "B", 'tiki bot-chat "from B itself"; echo "rcb=$?"')
    assert inside.returncode == 0
    host.wait_text("B", "rcb=0")
    chats = {e["text"]: e for e in _chats(host)}
    assert chats["handshake-ok"]["verified"] is False and chats["handshake-ok"]["verified_by"] is None
    assert chats["from B itself"]["verified"] is True and chats["from B itself"]["verified_by"] == "pty"


def test_over_tcp_the_token_is_the_check(serve, tiki_env):
    host = serve(BASH_TAB, env={**tiki_env, "TIKI_IPC": "tcp"})
    host.run("terminal-send", "sh", 'tiki bot-chat "DONE(over tcp)"; echo "tcp-rc=$?"')
    host.wait_text("sh", "tcp-rc=0")
    chat = [e for e in _chats(host) if e["text"] == "over tcp"][-1]
    assert chat["sender"] == "sh" and chat["verified"] is True and chat["verified_by"] == "token"
