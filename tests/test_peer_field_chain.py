"""Field bugs of the peers' handshake and continuation runs, found with the real binary: a real
`tiki serve`, real stand-in peers (tests/peer_standin.py) in real PTYs, a scripted model.

- Late replies restarted the coordinator forever: each continuation run sent to the peer
  again, whose late reply started the next. At most two generations of continuation runs
  follow the user's request; the next late reply is only shown and logged, and the log says so.
- A restarted peer tab runs a fresh program that was never introduced: its handshake starts
  over, so the next send carries the first-contact header again.
"""

from __future__ import annotations

import json

from conftest import peer, peer_got, wait_until
from fake_ollama import Reply

NO_BACKEND = {"TIKI_BACKEND": "ollama"}  # tiki_env points OLLAMA_HOST at a closed port


def events(host, kind: str) -> list[dict]:
    lines = host.run("log", "--json", "--last", "500").stdout.splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def test_late_replies_start_at_most_two_generations_of_continuation_runs(serve, fake_env, fake):
    # The peer answers 3 s after each message: always after the run that sent it has ended.
    host = serve(peer("Bot", "--persona", "codex", "--delay", "3"), env=fake_env)
    host.wait_text("Bot", "stand-in ready")
    # every run, the user's and each continuation, ends by sending to Bot again: enough for six
    fake.script(*[reply for i in range(6) for reply in
                  (Reply.action("send_to_terminal", tab="Bot", text=f"how are you now {i}?"),
                   Reply.action("done", message=f"asked {i}"))])
    result = host.run("ask", "-q", "ask Bot how it is doing", timeout=60)
    assert result.returncode == 0 and result.stdout == "asked 0\n", result.stderr
    ended = wait_until(lambda: events(host, "continuation_chain_ended"), 60, 0.2,
                       what="the chain's end in the event log")
    assert "2 continuation runs already followed your request" in ended[0]["detail"]
    assert ended[0]["tab"] == "Bot"
    # the user's run and two continuations sent; the third reply started nothing
    sent = peer_got(host, "Bot")
    assert [line.endswith(f"how are you now {i}?") for i, line in enumerate(sent)] == [True] * 3, sent
    assert len(fake.requests) == 6
    assert json.loads(host.run("status", "--json").stdout)["coordinator"]["state"] == "idle"


def test_a_restarted_peer_is_introduced_again(serve, tiki_env):
    host = serve(peer("Bot"), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Bot", "stand-in ready")
    first = host.run("ask", "-q", "@Bot what is 6 times 7?", timeout=60)
    assert first.returncode == 0 and first.stdout == "42, obviously (six sevens)\n", first.stderr
    peers = lambda: json.loads(host.run("status", "--json").stdout)["peers"]  # noqa: E731
    assert peers() == {"Bot": {"handshake": "connected"}}
    assert host.run("terminal-restart", "Bot").returncode == 0
    wait_until(lambda: host.read("Bot", 200).count("stand-in ready") == 2, what="the fresh stand-in")
    assert peers() == {"Bot": {"handshake": "not_connected"}}
    again = host.run("ask", "-q", "@Bot what is 3 times 5?", timeout=60)
    assert again.returncode == 0 and again.stdout == "15\n", again.stderr
    assert "header=yes" in peer_got(host, "Bot")[-1]  # the fresh program was introduced
