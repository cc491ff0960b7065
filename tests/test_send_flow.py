"""A send is written whole with flow control, or refused / reported as cut -- never "ok" when
the tab did not get it (issue 8, item 8: a 1 MB send was cut by the tty to ~4 KB yet ok)."""

from __future__ import annotations

import json
import time

from conftest import wait_until
from term_helpers import op

RAW_COUNTER = r"""
import os, sys, time, tty
tty.setraw(0)
os.write(1, b"READY\r\n")
n = 0
while True:
    data = os.read(0, 65536)
    if b"\r" in data:
        n += data.index(b"\r")
        break
    n += len(data)
os.write(1, b"COUNT %d\r\n" % n)
time.sleep(120)
"""

CANONICAL_LINE = r"""
import sys
print("READY", flush=True)
line = sys.stdin.readline()
print("GOT", len(line) - 1, flush=True)
line = sys.stdin.readline()
print("GOT", len(line) - 1, flush=True)
"""

NOT_READING = r"""
import os, time, tty
tty.setraw(0)
os.write(1, b"READY\r\n")
time.sleep(120)
"""


def _tab(name: str, script: str) -> str:
    return f'[[tab]]\nname = "{name}"\ncommand = {json.dumps(["python3", "-c", script])}\n'


def test_one_megabyte_reaches_a_raw_mode_program_whole(serve):
    host = serve(_tab("count", RAW_COUNTER))
    host.wait_text("count", "READY")
    text = "abcdefghij" * 100_000  # 1,000,000 bytes, one line
    started = time.monotonic()
    reply = op(host.env["TIKI_SOCKET"], "terminal.send", timeout=60, name="count", text=text)
    took = time.monotonic() - started
    assert reply["ok"], reply
    assert reply["result"]["written"] == len(text) + 1  # the text, then Enter
    screen = host.wait_text("count", "COUNT ")
    assert f"COUNT {len(text)}" in screen, screen
    print(f"\n1 MB send: {took:.2f} s, {len(text)} bytes received")


def test_a_line_the_tty_would_cut_is_refused_and_nothing_is_typed(serve):
    host = serve(_tab("lines", CANONICAL_LINE))
    host.wait_text("lines", "READY")
    refused = host.run("terminal-send", "lines", "a" * 5000)
    assert refused.returncode == 1, (refused.returncode, refused.stdout, refused.stderr)
    assert "at most 4095 bytes" in refused.stderr and "5000 bytes" in refused.stderr, refused.stderr
    assert "save the text to a file" in refused.stderr
    # Positive control: the longest line that fits arrives whole, and it is the first line the
    # program reads, so nothing of the refused text was typed.
    ok = host.run("terminal-send", "lines", "b" * 4095)
    assert ok.returncode == 0, ok.stderr
    screen = host.wait_text("lines", "GOT ")
    assert "GOT 4095" in screen, screen[-200:]


def test_a_program_that_stops_reading_gets_an_error_not_ok(serve):
    host = serve(_tab("stuck", NOT_READING))
    host.wait_text("stuck", "READY")
    text = "x" * 1_000_000
    started = time.monotonic()
    reply = op(host.env["TIKI_SOCKET"], "terminal.send", timeout=60, name="stuck", text=text, timeout_ms=2000)
    took = time.monotonic() - started
    assert reply["ok"] is False, {k: v for k, v in reply.items() if k != "result"}
    error = reply["error"]
    assert error["code"] == "timeout"
    assert 0 <= error["written"] < len(text) and error["size"] == len(text)
    assert f"only {error['written']} of {len(text)} bytes reached tab 'stuck'" in error["message"]
    assert took < 10, f"the send took {took:.1f} s with a 2 s timeout"
    # The host and the tab still answer; the tab can be closed.
    assert host.run("terminal-read", "stuck").returncode == 0
    assert host.run("terminal-close", "stuck").returncode == 0
    wait_until(lambda: host.json("terminal-list")["terminals"] == [], 10, what="the tab to close")


PASTE_LATE_READER = r"""
import os, time, tty
tty.setraw(0)
os.write(1, b"\x1b[?2004hREADY\r\n")  # bracketed paste on, as bash, vim and the AI CLIs ask
time.sleep(4)  # not reading: the sender gives up after 2 s
os.set_blocking(0, False)
data, quiet = b"", time.monotonic()
while time.monotonic() - quiet < 1.5:
    try:
        more = os.read(0, 65536)
    except BlockingIOError:
        time.sleep(0.01)
        continue
    data, quiet = data + more, time.monotonic()
try:
    data.decode("utf-8")
    utf8 = "whole"
except UnicodeDecodeError:
    utf8 = "cut"
closed = data.rfind(b"\x1b[201~") > data.rfind(b"\x1b[200~") >= 0
os.write(1, b"GOT %d UTF8 %s CLOSED %s\r\n" % (len(data), utf8.encode(), str(closed).encode()))
time.sleep(120)
"""


def test_a_paste_cut_short_is_still_closed_and_cut_between_characters(serve):
    """A bracketed paste the program stops reading is cut off after the timeout, but the
    program still gets the paste's end marker and whole characters when it reads again: it
    is not left inside a paste, taking every key typed later as pasted text. (The end marker
    was dropped with the rest, and the cut could fall inside a character.)"""
    host = serve(_tab("late", PASTE_LATE_READER))
    host.wait_text("late", "READY")
    text = "한글 텍스트 " * 20_000  # three-byte characters: 300 KB to type
    reply = op(host.env["TIKI_SOCKET"], "terminal.send", timeout=60, name="late", text=text, timeout_ms=2000)
    assert reply["ok"] is False and reply["error"]["code"] == "timeout", reply
    assert "the paste was closed" in reply["error"]["message"], reply["error"]["message"]
    screen = host.wait_text("late", "GOT ", timeout=20)
    assert "UTF8 whole CLOSED True" in screen, screen[-200:]
