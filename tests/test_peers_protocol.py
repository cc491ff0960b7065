"""The handshake state machine, the first-contact header and DONE(...) parsing (pure)."""

from __future__ import annotations

import pytest

from tikitaka.actors.peers.bot import header_template
from tikitaka.protocol.done import unwrap_done
from tikitaka.protocol.handshake import CONNECTED, HANDSHAKE_SENT, NOT_CONNECTED, Handshakes, is_ack, render_header


def test_first_send_introduces_then_ack_connects():
    hs = Handshakes(ack_timeout=120)
    assert hs.state("Claude") == NOT_CONNECTED
    assert hs.on_send("Claude", now=0) is True
    assert hs.state("claude") == HANDSHAKE_SENT  # names are case-insensitive
    assert hs.on_send("Claude", now=1) is False  # only the first send carries the header
    assert hs.on_ack("Claude") is True and hs.state("Claude") == CONNECTED
    assert hs.on_send("Claude", now=2) is False


def test_ack_timeout_rearms_the_next_send():
    hs = Handshakes(ack_timeout=120)
    hs.on_send("Claude", now=0)
    assert hs.expire(now=119) == []
    assert hs.expire(now=120) == ["Claude"] and hs.state("Claude") == NOT_CONNECTED
    assert hs.on_send("Claude", now=121) is True  # introduces itself again


def test_rename_moves_the_state_and_reset_forgets_all():
    hs = Handshakes()
    hs.on_send("Claude", 0)
    hs.on_ack("Claude")
    hs.rename("Claude", "Opus")
    assert hs.state("Opus") == CONNECTED and hs.state("Claude") == NOT_CONNECTED
    hs.reset()
    assert hs.state("Opus") == NOT_CONNECTED


@pytest.mark.parametrize("text", ["handshake-ok", "OK", "ready", "Ack", " ok. "])
def test_acks(text):
    assert is_ack(text)


@pytest.mark.parametrize("text", ["ok then, the answer is 4", "not ok", ""])
def test_not_acks(text):
    assert not is_ack(text)


def test_header_names_the_peer_its_identity_and_the_commands():
    header = render_header(header_template(), name="Claude", text="What is 6 times 7?")
    assert "\n" not in header  # typed into an input line: one line
    assert header.startswith("[tikitaka] You are Claude")
    assert "--from identity" in header
    assert "`tiki help peer`" in header
    assert '`tiki bot-chat "DONE(handshake-ok)" --from Claude`' in header
    assert '`tiki bot-chat "DONE(your reply)" --from Claude`' in header
    assert "answer in your terminal" in header
    assert header.endswith("Message: What is 6 times 7?")


@pytest.mark.parametrize("message, text", [
    ("DONE(42)", "42"),
    ("DONE(42, obviously)", "42, obviously"),
    ("DONE(f(x) = (a, b))", "f(x) = (a, b)"),
    ("done(lower case)", "lower case"),
    ("DONE(line one\nline two)", "line one\nline two"),
    ("DONE()", ""),
    ("  plain text  ", "plain text"),
    ("DONE(unbalanced", "DONE(unbalanced"),
])
def test_unwrap_done(message, text):
    assert unwrap_done(message) == text
