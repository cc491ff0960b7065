"""The environment a tab's child process starts with.

The user's environment, plus what makes a modern terminal (`TERM`, `COLORTERM`) and what lets the
`tiki` CLI inside the tab reach the host and prove which tab it is (`TIKI_SOCKET`, `TIKI_TAB`,
`TIKI_TAB_TOKEN`). `TMUX`/`TMUX_PANE` are dropped: programs would otherwise think they run inside
tmux (and tmux itself refuses to nest).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping

_DROP = ("TMUX", "TMUX_PANE")


def child_env(
    base: Mapping[str, str], *, tab: str, token: str, socket: str, bin_dir: str | None
) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in _DROP}
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    env["TIKI_SOCKET"] = socket
    env["TIKI_TAB"] = tab
    env["TIKI_TAB_TOKEN"] = token
    if bin_dir:
        path_key = "PATH"
        if os.name == "nt":  # Windows env keys are case-insensitive; keep the spelling in use
            path_key = next((k for k in env if k.upper() == "PATH"), "PATH")
        parts = [p for p in env.get(path_key, "").split(os.pathsep) if p]
        norm = os.path.normcase(os.path.normpath(bin_dir))
        rest = [p for p in parts if os.path.normcase(os.path.normpath(p)) != norm]
        env[path_key] = os.pathsep.join([bin_dir, *rest])
    return env


def new_tab_token() -> str:
    """A fresh per-tab secret for TIKI_TAB_TOKEN."""
    return secrets.token_urlsafe(24)
