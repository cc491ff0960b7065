"""A scripted stand-in for a CLI AI, run as a peer tab's program in tests.

It reads what is typed into it (bracketed-paste markers included), runs the acknowledgement
command the first-contact header tells it to, and answers a question through bot-chat, as
Claude Code would when it follows the briefing. It prints what it does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

ACK = re.compile(r'`(tiki bot-chat "DONE\(handshake-ok\)" --from [\w.-]+)`')


def main() -> None:
    sys.stdout.write("\x1b[?2004h")  # like real AI TUIs: ask for bracketed paste
    print("stand-in ready", flush=True)
    for raw in sys.stdin:
        line = raw.replace("\x1b[200~", "").replace("\x1b[201~", "").strip()
        if not line:
            continue
        # what arrived in this one line, in a form that survives the screen's line wrapping
        header = ("You are " + os.environ.get("TIKI_TAB", "?")) in line
        print(f"got: header={'yes' if header else 'no'} text={line[-60:]}", flush=True)
        ack = ACK.search(line)
        if ack:
            subprocess.run(ack.group(1), shell=True, check=False)
            print("acked", flush=True)
        if "6 times 7" in line:
            subprocess.run(["tiki", "bot-chat", "DONE(42, obviously (six sevens))"], check=False)
            print("answered", flush=True)


if __name__ == "__main__":
    main()
