"""`tiki install-skill`: teach Claude Code (a skill) and Codex (an AGENTS.md snippet) to
call back. Both are short and point at `tiki help peer`, so the guide never drifts from the
binary."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

SKILL = """\
---
name: tikitaka
description: Talk to the tikitaka coordinator and the other terminal tabs. Use when a message
  starts with [tikitaka], mentions bot-chat, or asks you to answer with DONE(...).
---

You are running in a tab of tikitaka, a terminal workspace; your tab name is in $TIKI_TAB.

- Read the full briefing first: `tiki help peer`.
- Answer the coordinator with `tiki bot-chat "DONE(your reply)" --from $TIKI_TAB`.
- Acknowledge a first contact once with `tiki bot-chat "DONE(handshake-ok)" --from $TIKI_TAB`.
- Keep replies short; put long output in a file and send its path.
"""

AGENTS_SNIPPET = """\
## tikitaka
You may be running in a tab of tikitaka (a terminal workspace; your tab name is $TIKI_TAB).
When a message starts with [tikitaka] or asks for DONE(...), read `tiki help peer` and answer with
`tiki bot-chat "DONE(your reply)" --from $TIKI_TAB`. Keep replies short."""


def add_commands(sub: Any) -> None:
    p = sub.add_parser("install-skill", help="write a Claude Code skill and print an AGENTS.md snippet for Codex")
    p.add_argument("--dir", type=Path, default=Path.cwd(), metavar="DIR",
                   help="project directory to write .claude/skills/tikitaka/SKILL.md into (default: here)")
    p.set_defaults(func=cmd_install_skill)


def cmd_install_skill(args: argparse.Namespace) -> int:
    target = args.dir.expanduser() / ".claude" / "skills" / "tikitaka" / "SKILL.md"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(SKILL, encoding="utf-8")
    except OSError as exc:
        print(f"tiki: cannot write {target}: {exc.strerror}")
        return 1
    print(f"wrote {target}")
    print("\nFor Codex, add this to AGENTS.md:\n")
    print(AGENTS_SNIPPET)
    return 0
