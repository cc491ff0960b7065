"""Field test: the locale a tab's programs see. README: "Tabs get the user's environment plus
TERM=xterm-256color, COLORTERM=truecolor, TERM_PROGRAM, TIKI_SOCKET, ...". A user on a
server with LANG=C (no LC_* set) gets, in a tmux pane, the C locale: `ls` quotes UTF-8 names as
octal escapes, `wc -m` counts bytes. In a tiki tab the same shell finds LC_CTYPE=C.UTF-8 -- a
variable the user never set -- so the same commands behave differently there. A real
`tiki serve`, the real CLI."""

from __future__ import annotations

import pytest
from conftest import BASH_TAB


@pytest.mark.parametrize("lang", ["C", "POSIX"])
def test_a_tab_gets_the_users_locale_not_a_coerced_one(serve, tiki_env, lang: str) -> None:
    env = {k: v for k, v in tiki_env.items() if not k.startswith(("LC_", "LANG"))}
    env["LANG"] = lang
    host = serve(BASH_TAB, env=env)
    line = 'echo "ctype=[${LC_CTYPE-unset}] charmap=[$(locale charmap)] end"'
    assert host.run("terminal-send", "sh", line).returncode == 0
    screen = host.wait_text("sh", "] end\n")
    shown = next(row for row in screen.splitlines() if row.startswith("ctype="))
    assert shown == "ctype=[unset] charmap=[ANSI_X3.4-1968] end", (
        f"with LANG={lang} and no LC_* the tab's shell shows {shown!r}; a tmux pane (and the user's own "
        "shell) shows ctype=[unset] charmap=[ANSI_X3.4-1968]")


def test_an_lc_ctype_the_user_set_is_kept() -> None:
    """Only the LC_CTYPE Python added goes: one the process was started with is the user's."""
    from tikitaka.terminals.env import undo_locale_coercion

    env = {"LANG": "C", "LC_CTYPE": "C.UTF-8"}
    undo_locale_coercion(env, started_with=b"LANG=C\0LC_CTYPE=C.UTF-8\0")
    assert env == {"LANG": "C", "LC_CTYPE": "C.UTF-8"}
    undo_locale_coercion(env, started_with=b"LANG=C\0")
    assert env == {"LANG": "C"}
