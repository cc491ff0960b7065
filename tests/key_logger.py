"""A tab program for TUI tests: raw mode, logs every read with its time to a file."""

import json
import os
import sys
import termios
import time
import tty

log = open(sys.argv[1], "a", buffering=1)
fd = sys.stdin.fileno()
tty.setraw(fd)
if "--bracketed" in sys.argv:  # ask for bracketed paste, as editors and AI CLIs do
    sys.stdout.write("\x1b[?2004hbracketed ready\r\n")
elif "--mouse" in sys.argv:  # ask for clicks, drags and the wheel in SGR, as vim with mouse=a does
    sys.stdout.write("\x1b[?1002h\x1b[?1006hmouse ready\r\n")
elif "--mouse-legacy" in sys.argv:  # clicks in the legacy X10 bytes (no encoding asked for)
    sys.stdout.write("\x1b[?1000hlegacy mouse ready\r\n")
elif "--alt" in sys.argv:  # a full-screen program that did not ask for the mouse (less, man)
    sys.stdout.write("\x1b[?1049halt ready\r\n")
else:
    sys.stdout.write("logger ready\r\n")
sys.stdout.flush()
while True:
    data = os.read(fd, 4096)
    if not data:
        break
    log.write(json.dumps({"t": time.monotonic(), "data": data.decode("utf-8", "replace")}) + "\n")
    sys.stdout.write(f"read {len(data)}\r\n")
    sys.stdout.flush()
    if data == b"\x04":
        break
termios.tcsetattr(fd, termios.TCSADRAIN, termios.tcgetattr(fd))
