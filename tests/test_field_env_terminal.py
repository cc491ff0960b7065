"""Field test: which terminal a tab's programs are told they run in. `tiki` started from iTerm2,
VS Code or Apple's Terminal passed the outer terminal's TERM_PROGRAM on to every tab, and
programs that key behaviour to it (Claude Code's notifications and key set-up, colour
downgrades for Apple_Terminal) acted for a terminal they were not talking to. A tmux pane says
TERM_PROGRAM=tmux, TERM_PROGRAM_VERSION=3.3a; a tab says tikitaka and its version, as its
XTVERSION answer does. A real `tiki serve`, the real CLI."""

from __future__ import annotations

from conftest import BASH_TAB

from tikitaka.terminals.replies import version as version_reply


def test_a_tab_names_tikitaka_as_its_terminal_not_the_one_tiki_was_started_from(serve, tiki_env) -> None:
    host = serve(BASH_TAB, env={**tiki_env, "TERM_PROGRAM": "iTerm.app", "TERM_PROGRAM_VERSION": "3.5.0"})
    assert host.run("terminal-send", "sh", 'echo "program=[$TERM_PROGRAM $TERM_PROGRAM_VERSION] end"').returncode == 0
    shown = next(row for row in host.wait_text("sh", "] end\n").splitlines() if row.startswith("program="))
    version = version_reply().removeprefix("\x1bP>|tikitaka ").removesuffix("\x1b\\")
    assert shown == f"program=[tikitaka {version}] end"
