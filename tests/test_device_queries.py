"""The questions a program asks its terminal, through a real tab: DA1, the cursor position,
which terminal and version (DA2: Emacs waits for it at start), "are you there" (DSR 5), the
terminal's name (XTVERSION: Claude Code asks it at start) and the text area's size (`CSI 18
t`). A tmux pane answers all of them; a tab answered the first two, and a program waiting for
the others waited out its timeout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

PROBE = Path(__file__).parent / "device_queries.py"


def test_a_program_in_a_tab_gets_an_answer_to_each_question_it_asks_its_terminal(serve):
    tab = json.dumps([sys.executable, str(PROBE)])
    host = serve(f'[[tab]]\nname = "probe"\ncommand = {tab}\n')
    text = host.wait_text("probe", "QUERIES DONE")
    printed = dict(line.strip().split("=", 1) for line in text.splitlines() if "=" in line)
    replies = {name: b"" if value == "none" else bytes.fromhex(value) for name, value in printed.items() if name != "KERNEL"}
    assert replies["DA1"] == b"\x1b[?62;22c"
    assert replies["DA2"] == b"\x1b[>1;0;0c"
    assert replies["DSR5"] == b"\x1b[0n"
    assert replies["DSR6"].startswith(b"\x1b[") and replies["DSR6"].endswith(b"R")
    assert replies["XTVERSION"].startswith(b"\x1bP>|tikitaka ") and replies["XTVERSION"].endswith(b"\x1b\\")
    assert replies["SIZE"] == f"\x1b[8;{printed['KERNEL']}t".encode()  # rows, then columns
