"""Field bugs of `tiki ask "@Name ..."` found with the real binary: a real `tiki serve`, real
stand-in peers (tests/peer_standin.py) and real programs in real PTYs, no model at all.

- A send that typed nothing (the tab exited, it waits for its user) leaves the peer
  `not_connected`: the next real send must still carry the first-contact header.
- A peer-role tab `waiting` for its user is never typed into, whatever its program's kind;
  the refusal shows what it asks.
- A relay that gets no answer fails: exit 4 for a timeout, 1 for a refusal; with several peers
  the answers it got are shown and the failed ones named.
- A peer renamed while the relay waits still answers; `@Bot!` names Bot; `@Bot @bot` asks once.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import BASH_TAB, TIKI, peer, wait_until

NO_BACKEND = {"TIKI_BACKEND": "ollama"}  # tiki_env points OLLAMA_HOST at a closed port


def tab(name: str, command: list[str], role: str = "peer") -> str:
    return f'[[tab]]\nname = "{name}"\ncommand = {json.dumps(command)}\nrole = "{role}"\n'


def relay_timeout(tiki_env: dict[str, str], seconds: float) -> None:
    config = Path(tiki_env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f"[coordinator]\nrelay_timeout = {seconds}\n")


def handshake(host, name: str) -> str:
    return json.loads(host.run("status", "--json").stdout)["peers"][name]["handshake"]


def agent_state(host, name: str) -> str:
    return next(row["agent"]["state"] for row in host.json("terminal-list")["terminals"] if row["name"] == name)


def test_a_send_to_an_exited_peer_fails_and_leaves_it_not_connected(serve, tiki_env):
    relay_timeout(tiki_env, 30)
    host = serve(tab("Late", ["bash", "--norc", "--noprofile", "-c", "exit 3"]), env={**tiki_env, **NO_BACKEND})
    wait_until(lambda: agent_state(host, "Late") == "exited", what="Late exited")
    result = host.run("ask", "-q", "@Late hello", timeout=60)
    # nothing was typed: the peer was not introduced, so the next real send must introduce it
    assert handshake(host, "Late") == "not_connected"
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "could not send to Late" in result.stderr and "has exited (code 3)" in result.stderr
    assert result.stdout == ""


def test_a_peer_tab_waiting_on_its_user_is_refused_with_what_it_asks(serve, tiki_env):
    relay_timeout(tiki_env, 3)
    asks = ["bash", "--norc", "--noprofile", "-c", 'read -p "Proceed? [y/N] " a; echo "answered: [$a]"; sleep 60']
    host = serve(tab("Ask", asks) + BASH_TAB, env={**tiki_env, **NO_BACKEND})
    wait_until(lambda: agent_state(host, "Ask") == "waiting", what="Ask waiting")
    result = host.run("ask", "-q", "@Ask hello", timeout=60)
    assert "answered:" not in host.read("Ask"), "the relay's text answered the tab's prompt"
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "waiting for its user" in result.stderr
    assert "It shows:" in result.stderr and "Proceed? [y/N]" in result.stderr  # what it asks
    assert handshake(host, "Ask") == "not_connected"
    # a shell-role tab is no peer: refused, exit 1 (it used to print the refusal and exit 0)
    shell = host.run("ask", "-q", "@sh hi", timeout=30)
    assert shell.returncode == 1 and "'sh' is a shell tab" in shell.stderr


def test_a_peer_that_never_answers_fails_and_names_the_size_limit(serve, tiki_env):
    relay_timeout(tiki_env, 2)
    host = serve(peer("Quiet", "--persona", "silent"), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Quiet", "stand-in ready")
    result = host.run("ask", "-q", "@Quiet never answer", timeout=60)
    assert result.returncode != 0, (result.stdout, result.stderr)
    assert "no reply from Quiet within 2 s" in result.stderr and "64 KB is refused" in result.stderr
    assert "got: header=yes" in result.stderr  # its screen


def test_a_relay_timeout_exits_4(serve, tiki_env):
    relay_timeout(tiki_env, 1)
    host = serve(peer("Quiet", "--persona", "silent"), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Quiet", "stand-in ready")
    assert host.run("ask", "-q", "@Quiet never answer", timeout=60).returncode == 4


def test_several_peers_some_answer_the_answers_are_shown_and_the_failure_named(serve, tiki_env):
    relay_timeout(tiki_env, 30)
    host = serve(peer("Bot") + BASH_TAB, env={**tiki_env, **NO_BACKEND})
    host.wait_text("Bot", "stand-in ready")
    result = host.run("ask", "-q", "@Bot @sh what is 6 times 7?", timeout=60)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Bot:\n42, obviously (six sevens)" in result.stderr
    assert "'sh' is a shell tab" in result.stderr and "no answer from sh" in result.stderr


def test_punctuation_after_a_name_and_a_name_twice(serve, tiki_env):
    relay_timeout(tiki_env, 30)
    host = serve(peer("Bot"), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Bot", "stand-in ready")
    bang = host.run("ask", "-q", "@Bot! what is 6 times 7?", timeout=60)
    assert (bang.returncode, bang.stdout) == (0, "42, obviously (six sevens)\n"), bang.stderr
    twice = host.run("ask", "-q", "@Bot? @bot, what is 3 times 5?", timeout=60)
    assert (twice.returncode, twice.stdout) == (0, "15\n"), twice.stderr
    got = [line for line in host.read("Bot", 60).splitlines() if line.startswith("got: ")]
    assert [line.endswith("what is 3 times 5?") for line in got] == [False, True]  # asked once


def test_a_peer_renamed_while_the_relay_waits_still_answers(serve, tiki_env, tmp_path):
    relay_timeout(tiki_env, 60)
    log = tmp_path / "replies.jsonl"
    host = serve(peer("Bot", "--persona", "codex", "--delay", "3", "--log", str(log)), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Bot", "stand-in ready")
    asking = subprocess.Popen([TIKI, "ask", "-q", "@Bot reply late please"], env=host.env, cwd=host.cwd,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        host.wait_text("Bot", "got: ")  # typed; the answer comes 3 s later
        assert host.run("terminal-rename", "Bot", "Robo").returncode == 0
        assert not log.exists(), "the reply came before the rename: this test proves nothing"
        out, err = asking.communicate(timeout=40)  # far less than the 60 s relay_timeout
    finally:
        if asking.poll() is None:
            asking.kill()
            asking.communicate()
    assert (asking.returncode, out) == (0, "noted: reply late please\n"), err


def test_a_message_of_several_lines_reaches_the_peer_as_one_and_gets_one_answer(serve, tiki_env, tmp_path):
    """A message of several lines goes as one bracketed paste, and a peer takes it as one
    message, as Claude Code does ("[Pasted text #1 +2 lines]", sent with the Enter after it).
    The stand-in answered every line of it instead: in a field run a toy model that copied a
    peer's screen into its tab drew sixty answers, and the relay after it was given one of
    those stale answers instead of the answer to its question."""
    log = tmp_path / "answers.jsonl"
    host = serve(peer("Claude", "--log", str(log)), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Claude", "stand-in ready")
    first = host.run("ask", "-q", "@Claude what is 2 times 3?\nsecond line\nthird line", timeout=60)
    assert first.returncode == 0 and first.stdout.strip() == "6", (first.stdout, first.stderr)
    second = host.run("ask", "-q", "@Claude what is 3 times 3?", timeout=60)
    assert second.returncode == 0 and second.stdout.strip() == "9", (second.stdout, second.stderr)
    # (the stand-in answers in order and logs each answer after the host took it: once "9" is
    # logged, anything the paste drew is logged before it)
    logged = lambda: [json.loads(line)["text"] for line in log.read_text().splitlines()]  # noqa: E731
    wait_until(lambda: "9" in logged(), what="the stand-in to log its answer")
    assert logged() == ["6", "9"], logged()


def test_a_relay_to_a_peer_still_answering_an_earlier_message_gets_its_own_answer(serve, tiki_env, tmp_path):
    """A peer at work on an earlier message (it shows a spinner, as Claude Code does) gets the
    relay's question once it is idle; the answer to the earlier message arrives while the
    question waits to be typed, and is not the question's answer (it was given as one)."""
    relay_timeout(tiki_env, 60)
    log = tmp_path / "answers.jsonl"
    host = serve(peer("Claude", "--delay", "3", "--spin", "--log", str(log)), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Claude", "stand-in ready")
    hello = host.run("ask", "-q", "@Claude what is 1 times 1?", timeout=60)  # (the handshake, first)
    assert hello.stdout.strip() == "1", (hello.stdout, hello.stderr)
    earlier = host.run("terminal-send", "Claude", "what is 5 times 5?")
    assert earlier.returncode == 0, earlier.stderr
    wait_until(lambda: agent_state(host, "Claude") == "working", what="Claude at work on the earlier message")
    relay = host.run("ask", "-q", "@Claude what is 3 times 3?", timeout=90)
    assert relay.returncode == 0 and relay.stdout.strip() == "9", (relay.stdout, relay.stderr)
    logged = [json.loads(line)["text"] for line in log.read_text().splitlines()]
    assert logged[:2] == ["1", "25"], logged


def test_a_relay_to_a_peer_at_work_for_longer_than_the_relay_waits_says_so(serve, tiki_env, tmp_path):
    """The question waits for the peer to be idle as long as the relay waits for a reply
    (`relay_timeout`). It waited 30 s at most before, then the relay took the next message for
    the reply: a peer at work for minutes -- an agent on a long task -- had its task's answer
    printed as the answer to the question. Now the relay says the peer was at work all along;
    the question is typed once it is idle, and its answer goes to the coordinator."""
    relay_timeout(tiki_env, 4)
    log = tmp_path / "answers.jsonl"
    host = serve(peer("Claude", "--delay", "0.5", "--slow", "5 times 5=9", "--spin", "--log", str(log)),
                 env={**tiki_env, **NO_BACKEND})
    host.wait_text("Claude", "stand-in ready")
    hello = host.run("ask", "-q", "@Claude what is 1 times 1?", timeout=60)  # (the handshake, first)
    assert hello.stdout.strip() == "1", (hello.stdout, hello.stderr)
    assert host.run("terminal-send", "Claude", "what is 5 times 5?").returncode == 0
    wait_until(lambda: agent_state(host, "Claude") == "working", what="Claude at work on the earlier message")
    relay = host.run("ask", "-q", "@Claude what is 3 times 3?", timeout=60)
    assert relay.returncode == 4, (relay.returncode, relay.stdout, relay.stderr)
    assert "Claude was at work for all of 4 s" in relay.stderr and "25" not in relay.stdout, relay.stderr
    logged = lambda: [json.loads(line)["text"] for line in log.read_text().splitlines()]  # noqa: E731
    wait_until(lambda: "9" in logged(), 30, what="the question typed once Claude was idle, and answered")
    assert logged() == ["1", "25", "9"], logged()


def test_a_peer_acknowledging_a_header_again_has_not_answered_the_relay(serve, tiki_env):
    """The header's own word, `handshake-ok`, from a peer already connected acknowledges a
    header again (a model pasted one into its tab: SmolLM2 did in the field run, and the next
    relay printed "handshake-ok"); it answers no question, so the relay waits for the reply."""
    host = serve(peer("Claude"), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Claude", "stand-in ready")
    assert host.run("ask", "-q", "@Claude what is 1 times 1?", timeout=60).stdout.strip() == "1"
    # the stand-in runs the acknowledgement it is shown first, then answers
    again = 'run `tiki bot-chat "DONE(handshake-ok)" --from Claude` and tell me what is 2 times 2?'
    relay = host.run("ask", "-q", f"@Claude {again}", timeout=60)
    assert relay.returncode == 0 and relay.stdout.strip() == "4", (relay.stdout, relay.stderr)
