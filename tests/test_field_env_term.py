"""Field test: the outer terminal's TERM. A terminal that cannot place the cursor (TERM=dumb: an
editor's shell buffer, a CI log, a serial console) or that names none (TERM unset: `env -i`)
cannot show a full-screen UI. tmux says so and exits ("open terminal failed: terminal does not
support clear", exit 1); `tiki` draws its whole UI there anyway -- in 24-bit colour even, as
the UI's own colour detection says "no colours" and the direct painter falls back to true
colour (app/tui/direct_paint.py) -- and keeps running, so the user sees a screenful of escape
sequences and does not know how to leave. The real `tiki` under tmux."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import wait_until
from tmux_outer import Outer

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"), pytest.mark.tmux]
BASH = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'


@pytest.mark.parametrize("via", ["env TERM=dumb", "env -u TERM"], ids=["dumb", "unset"])
def test_a_terminal_that_cannot_show_the_ui_is_refused_saying_why(tiki_env, tmp_path, via: str) -> None:
    outer = Outer(tiki_env)
    try:
        workspace = tmp_path / "ws.toml"
        workspace.write_text(BASH)
        outer.tiki("w0", "--workspace", str(workspace), cwd=str(tmp_path), via=via)
        try:
            screen = wait_until(lambda: re.search(r"TIKI-EXIT=\d", s := outer.screen("w0")) and s, 20, 0.1,
                                what="tiki to exit")
        except AssertionError as exc:
            raise AssertionError(f"`{via} tiki` did not refuse the terminal ({exc}); the screen now:\n"
                                 f"{outer.screen('w0')}") from None
        code = int(re.search(r"TIKI-EXIT=(\d+)", screen).group(1))
        assert code != 0 and "TERM" in screen, screen
        assert "? help" not in screen  # the UI was never drawn
    finally:
        outer.close()
