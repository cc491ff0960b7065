"""The environment a tab's child process starts with.

The user's environment, plus what makes a modern terminal (`TERM`, `COLORTERM`), which terminal
it is (`TERM_PROGRAM`, `TERM_PROGRAM_VERSION`: tikitaka, as tmux names itself), and what lets the
`tiki` CLI inside the tab reach the host and prove which tab it is (`TIKI_SOCKET`, `TIKI_TAB`,
`TIKI_TAB_TOKEN`). `TMUX`/`TMUX_PANE` are dropped: programs would otherwise think they run inside
tmux (and tmux itself refuses to nest). The user's environment is the one `tiki` was started
with, not the one Python made of it (`undo_locale_coercion`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from . import identity

_DROP = ("TMUX", "TMUX_PANE")


def child_env(
    base: Mapping[str, str], *, tab: str, token: str, socket: str, bin_dir: str | None
) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in _DROP}
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    # The terminal the program talks to is ours, not the one `tiki` was started from (programs
    # key behaviour to it: Claude Code's notifications, colour downgrades for Apple_Terminal).
    env["TERM_PROGRAM"], env["TERM_PROGRAM_VERSION"] = identity.NAME, identity.version()
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


def undo_locale_coercion(environ: "os._Environ[str] | dict[str, str]" = os.environ,
                         started_with: bytes | None = None) -> None:
    """Python started in the C or POSIX locale sets LC_CTYPE=C.UTF-8 in its own environment
    (PEP 538), which the host, and through it every tab, would pass on: with LANG=C a tab's `ls`
    showed UTF-8 names that a tmux pane shows as octal escapes, and `locale` named a variable
    the user never set. Where the environment the process was started with can be read
    (Linux: /proc/self/environ), an LC_CTYPE that was not in it goes. Call it first thing."""
    if started_with is None:
        try:
            with open("/proc/self/environ", "rb") as handle:
                started_with = handle.read()
        except OSError:  # (no /proc: macOS, Windows -- left as Python made it)
            return
    names = {item.partition(b"=")[0] for item in started_with.split(b"\0") if item}
    if "LC_CTYPE" in environ and b"LC_CTYPE" not in names:
        del environ["LC_CTYPE"]


def new_tab_token() -> str:
    """A fresh per-tab secret for TIKI_TAB_TOKEN."""
    import secrets  # (here: the command line imports this module and never makes a token)

    return secrets.token_urlsafe(24)
