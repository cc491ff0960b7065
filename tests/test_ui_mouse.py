"""Mouse events and the clipboard over the UI protocol (issue 11): a `mouse` message reaches the
program in the encoding it asked for (here the legacy bytes, which cannot carry a column past
223: such an event is dropped, as tmux does), frames say which mouse mode the program set, and
a program's OSC 52 comes down as a `clipboard` event."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import BASH_TAB, wait_until
from ui_protocol_helpers import Session

HERE = Path(__file__).parent


def received(log: Path) -> str:
    return "".join(json.loads(line)["data"] for line in log.read_text().splitlines()) if log.exists() else ""


def test_mouse_messages_are_encoded_as_the_program_asked(serve, tmp_path):
    log = tmp_path / "mouse.jsonl"
    host = serve(f'[[tab]]\nname = "m"\ncommand = ["{sys.executable}", "{HERE / "key_logger.py"}", "{log}", '
                 '"--mouse-legacy"]\n')
    ui = Session(host.env, 240, 24)
    tab = ui.tabs["m"]
    ui.client.watch(tab)
    frame = ui.next("screen", where=lambda e: e["mouse"] == 1000)  # the mode the program set
    assert frame["alt_screen"] is False
    ui.client.mouse(tab, "press", 9, 4, 0)
    ui.client.mouse(tab, "press", 230, 4, 0)  # past column 223: the legacy bytes cannot say it
    ui.client.mouse(tab, "release", 9, 4, 0)
    ui.client.mouse(tab, "drag", 10, 4, 0)  # 1000 reports no motion
    ui.client.mouse(tab, "wheel_down", 0, 0)
    want = "\x1b[M *%" + "\x1b[M#*%" + "\x1b[Ma!!"  # press, release (button 3 = "released"), wheel
    wait_until(lambda: received(log) == want, 10, 0.05, what=f"legacy reports; got {received(log)!r}")


def test_a_programs_clipboard_set_comes_down_as_an_event(serve):
    host = serve(BASH_TAB)
    ui = Session(host.env, 80, 24)
    sh = ui.tabs["sh"]
    ui.client.watch(sh)
    ui.next("screen")
    ui.client.input(sh, b"printf '\\033]52;c;%s\\a' $(printf copied-by-bash | base64)\r")
    event = ui.next("clipboard")
    assert event == {"kind": "clipboard", "tab": sh, "text": "copied-by-bash"}
