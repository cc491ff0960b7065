"""A tab program for keypad tests: raw mode, logs every read to a file as key_logger.py does,
and switches the terminal's keypad mode when told so by a read of its own: `!=` DECKPAM
(application), `!>` DECKPNM (numeric), `!c` RIS, `!s` DECSTR, `!66h`/`!66l` DECNKM (and
`!1h`/`!1l` the cursor keys, DECCKM). Each switch is acknowledged on the screen after the
sequence (`keypad <name> N`), so a test that waits for it knows the terminal has seen the
sequence; the commands themselves are not logged."""

import json
import os
import sys
import time
import tty

SWITCHES = {b"!=": b"\x1b=", b"!>": b"\x1b>", b"!c": b"\x1bc", b"!s": b"\x1b[!p", b"!66h": b"\x1b[?66h",
            b"!66l": b"\x1b[?66l", b"!1h": b"\x1b[?1h", b"!1l": b"\x1b[?1l"}

log = open(sys.argv[1], "a", buffering=1)
fd = sys.stdin.fileno()
tty.setraw(fd)
os.write(1, b"keypad logger ready\r\n")
switched = 0
while True:
    data = os.read(fd, 4096)
    if not data or data == b"\x04":
        break
    if data in SWITCHES:
        switched += 1
        os.write(1, SWITCHES[data] + b"keypad " + data[1:] + b" %d\r\n" % switched)
        continue
    log.write(json.dumps({"t": time.monotonic(), "data": data.decode("utf-8", "replace")}) + "\n")
    os.write(1, b"read %d\r\n" % len(data))
