"""The headline, end to end: the coordinator asks a peer AI in another tab, the peer acks the
handshake and answers through `tiki bot-chat`, the coordinator's wait wakes with it (issue 5)."""

from __future__ import annotations

import json

from conftest import BASH_TAB, peer, peer_got
from fake_ollama import Reply


def test_ask_claude_what_6_times_7_is(serve, fake_env, fake):
    host = serve(peer("Claude") + BASH_TAB, env=fake_env)
    host.wait_text("Claude", "stand-in ready")
    fake.script(
        Reply.action("send_to_terminal", tab="Claude", text="What is 6 times 7?"),
        Reply.action("wait", seconds=20),
        Reply.action("done", message="Claude says: 42, obviously (six sevens)"),
    )
    result = host.run("ask", "Ask Claude what 6 times 7 is and tell me the answer.", timeout=90)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Claude says: 42, obviously (six sevens)"
    # handshake and question went in ONE send: the stand-in saw them on one line
    got = peer_got(host, "Claude", 60)
    assert len(got) == 1 and "header=yes" in got[0] and got[0].endswith("Message: What is 6 times 7?")
    # the wait woke early with the peer's answer, commas and parentheses intact
    wait_end = next(json.loads(line.split(") ", 1)[1]) for line in result.stderr.splitlines()
                    if line.startswith("← wait"))
    assert wait_end["waited"] < 20
    assert wait_end["peer_messages"] == [{"from": "Claude", "text": "42, obviously (six sevens)", "verified": True}]
    assert "42, obviously (six sevens)" in fake.requests[2]["messages"][-1]["content"]
    status = json.loads(host.run("status", "--json").stdout)
    assert status["peers"] == {"Claude": {"handshake": "connected"}}


def test_shell_tab_never_gets_the_header(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("send_to_terminal", tab="sh", text="echo plain-$((2+2))"),
                Reply.action("done", message="ok"))
    assert host.run("ask", "--allow-shell", "type").returncode == 0
    text = host.wait_text("sh", "plain-4")
    assert "tikitaka" not in text and "You are" not in text
    assert json.loads(host.run("status", "--json").stdout)["peers"] == {}
