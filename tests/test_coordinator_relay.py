"""`tiki ask "@Claude ..."`: talking to a peer tab needs no model (issue 10). Real `tiki serve`,
real stand-in peers in real PTYs, no backend configured at all (nothing answers at
OLLAMA_HOST). Also `tiki reset`, `tiki ask --new`, and the no-backend failure."""

from __future__ import annotations

import json
import time
from pathlib import Path

from conftest import BASH_TAB, peer, peer_got, wait_until
from fake_ollama import Reply

NO_BACKEND = {"TIKI_BACKEND": "ollama"}  # tiki_env points OLLAMA_HOST at a closed port


def last_reply(log: Path) -> dict | None:
    """The stand-in's last logged reply, once a whole line of it is on disk: its `open(.., "a")`
    creates the file a moment before the line is written, and CI once read it in between."""
    whole = [line for line in (log.read_text().splitlines(keepends=True) if log.exists() else [])
             if line.endswith("\n")]
    return json.loads(whole[-1]) if whole else None


def test_at_claude_with_no_backend_prints_the_answer_commas_intact_within_a_second(serve, tiki_env, tmp_path):
    log = tmp_path / "replies.jsonl"
    host = serve(peer("Claude", "--delay", "0.5", "--log", str(log)) + BASH_TAB, env={**tiki_env, **NO_BACKEND})
    host.wait_text("Claude", "stand-in ready")
    result = host.run("ask", "@Claude what is 6 times 7?", timeout=60)
    returned = time.time()
    assert result.returncode == 0, result.stderr
    assert result.stdout == "42, obviously (six sevens)\n"
    # the stand-in notes the time its `tiki bot-chat` returned (the host had the reply); our
    # answer may even be out before that process has exited
    replied = wait_until(lambda: last_reply(log), what="the stand-in's reply log")["replied"]
    assert returned - replied < 1.0, f"printed {returned - replied:.2f} s after the peer's reply"
    # first contact: the header and the question in one verified send, then the handshake held
    got = peer_got(host, "Claude", 60)
    assert len(got) == 1 and "header=yes" in got[0] and got[0].endswith("Message: what is 6 times 7?")
    assert "→ send_to_terminal" in result.stderr and "done · 0 turns · 0 tok" in result.stderr
    assert json.loads(host.run("status", "--json").stdout)["peers"] == {"Claude": {"handshake": "connected"}}
    # the second time the peer is connected: no header
    again = host.run("ask", "@claude what is 3 times 5?", timeout=60)
    assert again.returncode == 0 and again.stdout == "15\n"
    assert "header=no text=what is 3 times 5?" in host.wait_text("Claude", "text=what is 3 times 5?")


def test_several_names_are_asked_in_turn_and_answer_under_their_names(serve, tiki_env):
    host = serve(peer("Claude") + peer("Codex", "--persona", "codex", "--delay", "0.3"),
                 env={**tiki_env, **NO_BACKEND})
    host.wait_text("Codex", "stand-in ready")
    result = host.run("ask", "@Claude @Codex what is 6 times 7?", timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Claude:\n42, obviously (six sevens)\n\nCodex:\nnoted: what is 6 times 7?\n"


def test_a_peer_that_never_replies_shows_its_screen_and_unknown_names_are_refused(serve, tiki_env, tmp_path):
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text("[coordinator]\nrelay_timeout = 2\n")
    host = serve(peer("Quiet", "--persona", "silent"), env={**tiki_env, **NO_BACKEND})
    host.wait_text("Quiet", "stand-in ready")
    result = host.run("ask", "@Quiet are you there?", timeout=60)
    assert result.returncode == 4, result.stderr  # timed out, as `tiki --help` says
    assert ("no reply from Quiet within 2 s (relay_timeout; a bot-chat reply over 64 KB is refused and never "
            "arrives); its screen shows:\n") in result.stderr
    assert "got: header=yes" in result.stderr and "acked" in result.stderr
    wrong = host.run("ask", "@Nobody hello", timeout=30)
    assert wrong.returncode == 1 and "no tab named 'Nobody'; tabs are: Quiet" in wrong.stderr


def test_hello_with_no_backend_fails_at_once_with_the_fix(serve, tiki_env):
    host = serve(BASH_TAB, env={**tiki_env, **NO_BACKEND})
    started = time.monotonic()
    result = host.run("ask", "hello")
    elapsed = time.monotonic() - started
    assert result.returncode == 1
    assert "no Ollama answering at http://127.0.0.1:9: start it with `ollama serve`" in result.stderr
    final = next(line for line in result.stderr.splitlines() if line.startswith("stopped · "))
    assert float(final.split(" · ")[-1].removesuffix(" s")) < 1.0  # the host's side of it
    assert elapsed < 3.0, f"took {elapsed:.2f} s"  # CLI start-up included, on a loaded machine


def test_reset_and_ask_new_start_a_new_session(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    fake.script(Reply.action("done", message="one"), Reply.action("done", message="two"))
    assert host.run("ask", "first").stdout == "one\n"
    assert host.run("ask", "second").stdout == "two\n"
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["system", "user", "assistant", "user"]
    reset = host.run("reset")
    assert reset.returncode == 0 and "new coordinator session" in reset.stdout
    fake.script(Reply.action("done", message="three"), Reply.action("done", message="four"))
    assert host.run("ask", "third").stdout == "three\n"
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["system", "user"]
    assert host.run("ask", "--new", "fourth").stdout == "four\n"
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["system", "user"]


def test_an_older_message_from_the_peer_is_not_taken_for_its_answer(agent):
    # A remark Claude made after the previous run's last tool is still queued for the next run
    # when `@Claude` asks: the relay must wait for the answer to its own question.
    from conftest import wait_until

    a = agent(peer("Claude", "--delay", "0.3"), peers=True)  # the bot routes the stand-in's bot-chat
    wait_until(lambda: "stand-in ready" in a.host.workspace.get("Claude").get().terminal.read_text(5).get()["text"],
               what="the stand-in")
    a.coordinator.peer_message("Claude", "an old remark", True).get(timeout=5)
    final, _ = a.run("@Claude what is 6 times 7?")
    assert final.message == "42, obviously (six sevens)"
    # and the old remark is still news for the next model run
    a.fake.script(Reply.action("done", message="ok"))
    a.run("anything new?")
    assert "an old remark" in a.fake.requests[-1]["messages"][-1]["content"]
