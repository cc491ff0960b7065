"""A UI's watch of a tab that fails (the tab's screen cannot be read: an injected fault in its
snapshot) is refused whole, in a real host with real UI sessions: the UI is told, gets no
changed rows of a screen it never had, and the tab keeps serving every other UI."""

from __future__ import annotations

import pytest
from conftest import wait_until
from ui_protocol_helpers import Session

from tikitaka.terminals.screen import Screen

BUSY = b"i=0; while :; do printf '\\r%d' $((i+=1)); sleep 0.002; done\r"  # one row, always


def fail_snapshots(monkeypatch, times: int) -> list[int]:
    """The next `times` snapshots of a tab's screen raise; returns the count of those raised."""
    snapshot, raised = Screen.snapshot, []

    def failing(self):
        if len(raised) < times:
            raised.append(1)
            raise RuntimeError("the screen could not be read")
        return snapshot(self)

    monkeypatch.setattr(Screen, "snapshot", failing)
    return raised


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside-another-ui"])
def test_a_watch_whose_snapshot_fails_is_refused_and_sends_no_changed_rows(bash_host, in_tiki_env, monkeypatch, beside):
    other = Session(in_tiki_env, 80, 24)
    sh = other.tabs["sh"]
    other.client.input(sh, BUSY)
    if beside:  # the tab's feed is there already: the failing watch only asks for a snapshot
        other.client.watch(sh)
        other.next("screen")
    raised = fail_snapshots(monkeypatch, 1)
    ui = Session(in_tiki_env, 80, 24)
    ui.client.watch(sh)
    error = ui.next("error")  # (before: the host ended the UI's session, "ui.attach failed")
    assert raised and "could not be read" in error["message"], error
    assert not ui.closed
    if not beside:
        other.client.watch(sh)
    for _ in range(4):  # the tab redraws its row all the while: frames go to the UI that has it
        other.next("screen", where=lambda e: e["tab"] == sh and not e["full"])
    ui.client.watch(sh)  # switching to the tab again: the whole screen, then changes
    first = ui.next("screen", where=lambda e: e["tab"] == sh)
    assert first["full"] and len(first["lines"]) == 24, (first["full"], len(first["lines"]))
    ui.next("screen", where=lambda e: e["tab"] == sh and not e["full"])
    other.client.input(sh, b"\x03")
    ui.client.close()
    other.client.close()


def test_a_tab_restarted_after_a_failure_whose_screen_cannot_be_read_is_said_to_its_ui(bash_host, in_tiki_env, monkeypatch):
    """A tab whose terminal actor failed is started again by `terminal-restart` (a new actor),
    and the UIs showing the tab are moved to the new one; when its screen cannot be read, each
    of them is told so (the move of the others goes on), and showing the tab again works."""
    from test_supervision import Boom, inject

    from tikitaka.actors.tabs.terminal import TerminalActor

    ui = Session(in_tiki_env, 80, 24)
    sh = ui.tabs["sh"]
    ui.client.watch(sh)
    ui.next("screen")
    inject(monkeypatch, TerminalActor)
    old = bash_host.workspace.get("sh").get(timeout=5).terminal.actor_ref
    old.tell(Boom())
    wait_until(lambda: not old.is_alive(), what="the tab's actor to fail")
    fail_snapshots(monkeypatch, 1)
    bash_host.workspace.restart_tab("sh").get(timeout=30)
    error = ui.next("error")
    assert "restarted" in error["message"] and "show it again" in error["message"], error
    assert not ui.closed
    ui.client.watch(sh)
    first = ui.next("screen", where=lambda e: e["tab"] == sh)
    assert first["full"]
    ui.client.input(sh, b"echo after-$((40+2))\r")
    ui.until_screen("after-42")
    ui.client.close()


def test_a_history_request_that_fails_is_answered_with_an_error(bash_host, in_tiki_env, monkeypatch):
    """A scrollback request whose page cannot be read (an injected fault in the tab's history)
    got no answer at all: the host's task died with it (logged), and the UI waited for a page
    that never came (its search "waiting for the history" for ever). It is answered with an
    error naming the cause and the request's ref; the next request is served."""
    history_page, raised = Screen.history_page, []

    def failing(self, *args, **kwargs):
        if not raised:
            raised.append(1)
            raise RuntimeError("the history could not be read")
        return history_page(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "history_page", failing)
    ui = Session(in_tiki_env, 80, 24)
    sh = ui.tabs["sh"]
    ref = ui.client.scrollback(sh, 10, offset=10, screen=True)
    error = ui.next("error", timeout=10)
    assert raised and error["ref"] == ref and "could not be read" in error["message"], error
    again = ui.client.scrollback(sh, 10, offset=10, screen=True)
    page = ui.next("history")
    assert page["ref"] == again and page["screen"] and "total" in page
    assert not ui.closed
    ui.client.close()
