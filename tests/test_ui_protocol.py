"""The UI protocol on a real `tiki serve` (issue 13): a versioned handshake, a snapshot then
only changed rows, any number of sessions, sizes following the latest UI, scrollback pages,
bad messages answered without ending the session, attaching from inside a tab.
(Slow readers, floods and which tabs are watched: test_ui_protocol_flow.py.)"""

from __future__ import annotations

import json
import os
import queue
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import BASH_TAB, wait_until
from ipc_helpers import connect, request
from ui_protocol_helpers import TWO_TABS, Session

from tikitaka.app.ui_client import NoHost, UiClient
from tikitaka.protocol import ops, ui


def test_the_handshake_is_versioned_and_a_mismatch_is_refused_clearly(serve):
    host = serve(BASH_TAB)
    conn = connect(host.env)
    conn.sendall(json.dumps({"id": "u", "op": "ui.attach", "args": {"version": 99}}).encode() + b"\n")
    reply = json.loads(conn.makefile("rb").readline())
    assert reply["ok"] is False and reply["error"]["code"] == "refused"
    assert f"speaks UI protocol {ui.VERSION} and the UI speaks 99" in reply["error"]["message"]
    session = Session(host.env)
    assert session.hello["kind"] == "hello" and list(session.tabs) == ["sh"]
    assert session.hello["coordinator"] is True and session.hello["consents"] == []


def test_a_snapshot_then_only_changed_rows_and_two_sessions_see_the_same(serve):
    host = serve(BASH_TAB)
    first, second = Session(host.env, 80, 24), Session(host.env, 80, 24)
    sh = first.tabs["sh"]
    for session in (first, second):
        session.client.watch(sh)
        full = session.next("screen")
        assert full["full"] and full["rows"] == 24 and len(full["lines"]) == 24  # the whole screen
    first.client.input(sh, b"clear; printf '\\e[31mred\\e[0m plain\\n'\r")
    for session in (first, second):  # what one UI types, every UI sees
        session.until_screen("red plain")
    row = next(r for r, text in first.rows.items() if text.startswith("red plain"))
    assert first.segments[row][:2] == [["red", "31"], [" plain", ""]]  # styles travel as SGR parameters
    first.client.input(sh, b"x")
    diff = first.next("screen", where=lambda e: any("x" in t for line in e["lines"].values() for t, _ in line))
    assert not diff["full"] and len(diff["lines"]) <= 2  # one key: its row, not the screen
    assert diff["cursor"][2] is True and diff["title"] == "" and diff["alt_screen"] is False


def test_each_ui_watches_its_own_tab_and_the_size_follows_the_latest_ui(serve):
    host = serve(TWO_TABS)
    wide, narrow = Session(host.env, 100, 30), Session(host.env, 60, 20)
    sh, other = wide.tabs["sh"], wide.tabs["other"]
    wide.client.watch(sh)
    narrow.client.watch(other)
    wide.next("screen")
    narrow.next("screen")
    narrow.client.input(other, b"echo on-other\r")
    narrow.until_screen("on-other")
    host.run("terminal-send", "sh", "echo on-sh")
    wide.until_screen("on-sh")
    assert not any(e.get("kind") == "screen" and e["tab"] == sh for e in list(narrow.events.queue))
    narrow.client.watch(sh)  # now both show sh; typing in one makes it the latest
    narrow.client.input(sh, b"stty size\r")
    narrow.until_screen("20 60")
    wide.client.input(sh, b"stty size\r")
    wide.until_screen("30 100")
    frame = narrow.next("screen", where=lambda e: e["cols"] == 100)
    assert frame["rows"] == 30  # the narrow UI gets the tab at the wide UI's size (and clips it)


def test_tiki_status_lists_the_attached_uis(serve):
    """Any number of UIs may attach, from anywhere (another terminal, a laptop over SSH): `tiki
    status` says which are attached, as `tmux list-clients` does -- each one's terminal, size,
    the tab it shows, when it came and was last used, and which is the latest (whose size its
    tab takes)."""
    host = serve(TWO_TABS)
    assert "UIs: none attached" in host.run("status").stdout
    first = Session(host.env, 100, 30)
    first.client.close()  # (a session that left is not listed)
    wide, narrow = Session(host.env, 100, 30), Session(host.env, 60, 20)
    wide.client.watch(wide.tabs["sh"])
    wide.next("screen")
    narrow.client.watch(wide.tabs["other"])  # (switching tabs uses the UI: the latest)
    uis = wait_until(lambda: (uis := host.json("status")["host"]["uis"]) and len(uis) == 2
                     and all(ui["tab"] for ui in uis) and uis, 10, 0.05, what="two UIs showing their tabs")
    assert [(ui["size"], ui["tab"], ui["latest"], ui["pid"]) for ui in uis] == [
        ([100, 30], "sh", False, os.getpid()), ([60, 20], "other", True, os.getpid())]
    # (the terminal is the kernel's word: this test's, if it has one; the real `tiki` in tmux
    # is named by its pane's in test_attach_tmux)
    assert uis[0]["tty"] == uis[1]["tty"] and (uis[0]["tty"] or "/dev/").startswith("/dev/")
    assert uis[0]["idle_s"] >= 0 and uis[0]["attached_s"] >= uis[0]["idle_s"]
    lines = host.run("status").stdout.splitlines()
    assert "UIs: 2 attached" in lines
    listed = [line for line in lines if line.startswith("  ") and "showing" in line]
    assert f"pid {os.getpid()}: 100x30, showing sh; attached" in listed[0] and "latest" not in listed[0]
    assert f"pid {os.getpid()}: 60x20, showing other; attached " in listed[1]
    assert listed[1].endswith("(used last: a tab it shows with others takes its size)")
    narrow.client.close()
    wait_until(lambda: len(host.json("status")["host"]["uis"]) == 1, 10, 0.05, what="the narrow UI gone from the list")


def test_when_the_latest_ui_leaves_a_tab_it_takes_the_size_of_the_latest_ui_still_showing_it(serve):
    """tmux's `window-size latest` all the way: the size a tab follows is that of the most
    recently active UI among those showing it -- also once that UI detaches or looks at another
    tab, or the one left would see the tab clipped or padded until it typed."""
    host = serve(TWO_TABS)
    wide, middle, narrow = Session(host.env, 100, 30), Session(host.env, 90, 26), Session(host.env, 60, 20)
    sh, other = wide.tabs["sh"], wide.tabs["other"]
    for session in (wide, middle, narrow):
        session.client.watch(sh)
        session.next("screen")
    for number, session in enumerate((wide, middle, narrow)):  # one after another: middle is the latest but one
        session.client.input(sh, b"echo typed-$((%d+1))\r" % number)
        session.until_screen(f"typed-{number + 1}")
    narrow.client.input(sh, b"stty size\r")
    wide.until_screen("20 60")

    narrow.client.watch(other)  # the latest looks at another tab: sh follows the next latest
    narrow.next("screen", where=lambda e: e["tab"] == other)
    host.run("terminal-send", "sh", "stty size")
    wide.until_screen("26 90")

    middle.client.close()  # and when that one detaches, the one left
    wide.next("screen", where=lambda e: e["tab"] == sh and e["cols"] == 100)
    host.run("terminal-send", "sh", "stty size")
    wide.until_screen("30 100")
    wide.client.close()
    narrow.client.close()


def test_scrollback_pages_and_bad_messages_do_not_end_the_session(serve):
    host = serve(BASH_TAB)
    session = Session(host.env, 80, 24)
    sh = session.tabs["sh"]
    session.client.watch(sh)
    session.next("screen")
    session.client.input(sh, b"seq -f line%03g 1 300\r")
    session.until_screen("line300")
    ref = session.client.scrollback(sh, 10, offset=250)
    page = session.next("history", where=lambda e: e["ref"] == ref)
    texts = ["".join(t for t, _ in line).rstrip() for line in page["lines"]]
    assert page["offset"] == 250 and len(texts) == 10 and page["total"] >= 278
    first = int(texts[0].removeprefix("line"))
    assert texts == [f"line{n:03d}" for n in range(first, first + 10)]
    for bad in (b"not json\n", b'{"t": "fly"}\n', b'{"t": "input", "tab": "sh"}\n', b'{"t": "watch", "tab": 999}\n'):
        session.client._conn.sendall(bad)  # noqa: SLF001 - what a broken client would send
        error = session.next("error")
        assert error["message"]
    replies: queue.Queue[dict[str, Any]] = queue.Queue()
    session.client.call(ops.TERMINAL_LIST, {}, replies.put)
    assert [t["name"] for t in replies.get(timeout=10)["result"]["terminals"]] == ["sh"]
    session.client.call(ops.TERMINAL_WAIT, {"name": "sh"}, replies.put)
    refused = replies.get(timeout=10)
    assert refused["ok"] is False and "connection of its own" in refused["error"]["message"]
    session.client.call(ops.TERMINAL_NEW, {"name": "bad name"}, replies.put)
    assert "invalid tab name" in replies.get(timeout=10)["error"]["message"]
    session.client.input(sh, b"echo still-here\r")
    session.until_screen("still-here")


def test_the_host_stopping_ends_every_session_saying_why(serve):
    host = serve(BASH_TAB)
    session = Session(host.env)
    assert host.run("shutdown").returncode == 0
    wait_until(lambda: session.closed, 15, what="the session to end")
    assert session.closed == ["the host is stopping"]


def test_attaching_where_no_host_runs_says_so(tiki_env):
    with pytest.raises(NoHost, match="no tiki host"):
        UiClient(Path(tiki_env["TIKI_SOCKET"])).connect()


def test_tiki_inside_a_tab_of_its_own_host_refuses_to_attach_a_ui_to_itself(serve):
    """A UI in a tab of the host it attaches to shows that tab: itself, inside itself, redrawn
    for ever (seen: a blank view and a busy UI). Refused, as tmux refuses to nest, saying how
    to do what was meant (exit 1: the host refused)."""
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "tiki; echo tiki-exit$((0))-$?")  # (the typed line says no "exit0")
    screen = host.wait_text("sh", "tiki-exit0-")
    assert "tiki-exit0-1" in screen, screen
    said = re.sub(r"\s+", "", screen)  # (the tab wraps the message: compare it squashed)
    for words in ("tab 'sh' of the host", "inside itself", "outside the host's tabs"):
        assert re.sub(r"\s+", "", words) in said, screen


def test_tiki_inside_a_tab_attaches_to_another_host(serve, tiki_env):
    """Only a host's own tabs are refused: from a tab of one host, a UI of another attaches."""
    sock_dir = tempfile.mkdtemp(prefix="tk-")
    other_env = {**tiki_env, "TIKI_SOCKET": os.path.join(sock_dir, "s")}
    other = serve(BASH_TAB, env=other_env)
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", f"TIKI_SOCKET={other_env['TIKI_SOCKET']} tiki; echo ui-exit$((0))-$?")
    wait_until(lambda: other.json("terminal-list")["terminals"][0]["watched"], 15, 0.1,
               what="the other host's tab watched by the UI in this host's tab")
    host.run("terminal-key", "sh", "ctrl+\\", "d")  # detach it with the prefix
    assert "ui-exit0-0" in host.wait_text("sh", "ui-exit0-")


def test_a_ui_that_attaches_later_gets_what_the_panel_said_before(serve):
    """The agent panel's log lived in the UI: a UI attached after a detach (or a second one)
    started with an empty panel, though the host had sent every message. Now its first event
    after hello is the `backlog`: the messages and run lines said before, oldest first --
    at most 256 KB of them, the newest kept."""
    host = serve(BASH_TAB)
    first = Session(host.env)
    assert host.run("bot-chat", "said before the others came", "--from", "Tester").returncode == 0
    first.next("chat")
    backlog = Session(host.env).events.get(timeout=15)
    assert backlog["kind"] == "backlog", backlog
    assert [(e["kind"], e["sender"], e["text"]) for e in backlog["events"]] == [
        ("chat", "Tester", "said before the others came")]
    big = "x" * 1000
    for n in range(400):  # ~420 KB of messages: more than a backlog holds
        reply = request(host.env, "bot.chat", **{"message": f"{n:03d} {big}", "from": "Bulk"})
        assert reply is not None and reply["ok"], reply
    first.next("chat", where=lambda e: e["text"].startswith("399 "))
    kept = Session(host.env).events.get(timeout=15)["events"]
    numbers = [int(e["text"][:3]) for e in kept if e["sender"] == "Bulk"]
    assert numbers == list(range(numbers[0], 400)) and 150 < len(numbers) < 260, numbers[:3]
    assert len(json.dumps(kept)) <= 256 * 1024 + 10_000
