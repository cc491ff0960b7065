"""Scrollback mode on a real host: a search typed at once after prefix+[ (before the history
pages have come from the host) still finds its match once they arrive."""

from __future__ import annotations

from conftest import BASH_TAB
from tui_helpers import make_app, screen_text, stop, until


async def test_a_search_typed_before_the_history_arrives_finds_its_match(tmp_path):
    app = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.view.tab_id is not None and screen_text(app).strip(), what="a prompt")
            app.client.input(app.view.tab_id, b"seq 1 3000\r")
            await until(pilot, lambda: "3000" in screen_text(app), what="seq")
            mode = app.view.copy
            # No await between these: the host's pages can only be taken in after them.
            mode.enter()
            for character in "?777":
                mode.key(character, character)
            mode.key("enter", None)
            assert mode.refs  # the history is still on its way
            await until(pilot, lambda: mode.match is not None, what="the match, once the history arrived")
            assert "".join(text for text, _ in mode.line(mode.match.start.row)) == "2777"  # backward: the latest
    finally:
        stop(app)
