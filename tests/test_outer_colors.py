"""The default colours a tab's program is told (OSC 10/11: vim, Neovim and Codex ask, to pick
colours for a dark or a light screen). A tab answered nothing, as tmux 3.3a's pane does; now
the UI asks its own terminal as it starts and tells the host (`colors`), and a program in a
tab gets the colours of the latest UI's terminal -- over the UI protocol of a real host, in
the screen and the UI's input splitter, and through the real `tiki` in tmux, the terminal's
answer sent as a terminal sends it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import wait_until
from tmux_outer import Outer
from ui_protocol_helpers import Session

from tikitaka.app.tui.raw_input import Splitter
from tikitaka.terminals.screen import Screen

PROBE = Path(__file__).parent / "device_queries.py"
PROBE_TAB = f'[[tab]]\nname = "probe"\ncommand = {json.dumps([sys.executable, str(PROBE), "FG", "BG"])}\n'
DARK, LIGHT = ("rgb:dcdc/dcdc/dcdc", "rgb:1c1c/1c1c/1c1c"), ("rgb:0000/0000/0000", "rgb:ffff/ffff/ffff")


def answers(text: str, round_: int) -> tuple[bytes, bytes]:
    """The probe's FG and BG answers of round `round_` (b"" for none)."""
    lines = text.split(f"QUERIES DONE {round_ - 1}")[-1].split(f"QUERIES DONE {round_}")[0].splitlines()
    got = dict(line.strip().split("=", 1) for line in lines if "=" in line)
    return tuple(b"" if got[name] == "none" else bytes.fromhex(got[name]) for name in ("FG", "BG"))  # type: ignore[return-value]


def test_the_screen_answers_with_the_colours_it_was_given_as_it_was_asked():
    screen = Screen(40, 5)
    assert screen.feed(b"\x1b]11;?\x07") == b""  # none known: no answer
    screen.colors = DARK
    query = b"\x1b]10;?\x1b\\x\x1b]11;?\x07"
    wanted = f"\x1b]10;{DARK[0]}\x1b\\\x1b]11;{DARK[1]}\x07".encode()
    assert screen.feed(query) == wanted
    assert b"".join(screen.feed(query[i:i + 1]) for i in range(len(query))) == wanted


def test_the_splitter_gives_the_terminals_colours_to_the_ui_and_alt_bracket_to_the_tab():
    splitter = Splitter(b"\x1c")
    reply = f"\x1b]11;{DARK[1]}\x1b\\".encode()
    assert splitter.feed(b"a" + reply + b"b") == [("tab", b"a"), ("ui", reply), ("tab", b"b")]
    assert splitter.feed(b"\x1b]") == [("tab", b"\x1b]")]  # Alt+]: at once, as before
    splitter.awaiting_colors = True  # while the UI waits for them, an answer cut off is held
    assert splitter.feed(reply[:9]) == [] and splitter.feed(reply[9:]) == [("ui", reply)]
    assert splitter.feed(b"\x1b]") == [] and splitter.flush() == [("tab", b"\x1b]")]


def test_a_program_in_a_tab_gets_the_colours_of_the_latest_uis_terminal(serve):
    host = serve(PROBE_TAB)
    first = Session(host.env, 80, 24)
    probe = first.tabs["probe"]
    assert answers(host.wait_text("probe", "QUERIES DONE 1"), 1) == (b"", b"")  # no UI told any
    first.client.colors(*DARK)
    first.client.watch(probe)
    first.next("screen")
    first.client.input(probe, b"\r")
    assert answers(host.wait_text("probe", "QUERIES DONE 2"), 2) == (
        f"\x1b]10;{DARK[0]}\x1b\\".encode(), f"\x1b]11;{DARK[1]}\x07".encode())
    second = Session(host.env, 80, 24)  # another UI, its terminal light: the latest once used
    second.client.colors(*LIGHT)
    second.client.watch(probe)
    second.next("screen")
    second.client.input(probe, b"\r")
    assert answers(host.wait_text("probe", "QUERIES DONE 3"), 3)[1] == f"\x1b]11;{LIGHT[1]}\x07".encode()
    second.client.close()  # it left: the colours stay (a program started later still gets some)
    first.client.colors(None, None)  # a terminal that did not answer changes nothing
    first.client.input(probe, b"\r")
    assert answers(host.wait_text("probe", "QUERIES DONE 4"), 4)[1] == f"\x1b]11;{LIGHT[1]}\x07".encode()
    first.client.send({"t": "colors", "ref": 99, "bg": "\x07; rm -rf ~"})  # only a colour is passed on
    assert "not a colour" in first.next("error", where=lambda e: e.get("ref") == 99)["message"]
    first.client.close()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_the_ui_tells_the_host_what_its_terminal_answered(tiki_env, tmp_path):
    """tmux 3.3a does not answer OSC 10/11 itself: its answer is sent as a terminal sends it,
    right after the UI asked (the UI waits a second for it), with keys around it."""
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", PROBE_TAB, ready="QUERIES DONE 1")
        reply = f"\x1b]10;{DARK[0]}\x1b\\\x1b]11;{DARK[1]}\x07".encode()
        outer.tmux("send-keys", "-t", "w0", "-H", *(f"{byte:02x}" for byte in reply))
        outer.keys("w0", "Enter")
        screen = outer.wait("w0", "QUERIES DONE 2")
        assert "BG=1b5d31313b7267623a316331632f316331632f3163316307" in screen.replace("\n", ""), screen
        assert "rgb:" not in screen  # (the answer is the UI's: it never reached the tab as keys)
        wait_until(lambda: "FG=1b5d31303b" in outer.screen("w0"), 5, 0.1, what="the foreground too")
    finally:
        outer.close()
