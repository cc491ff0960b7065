"""Scrollback mode on a real host: keys typed at once after prefix+[, before the history and
screen have come from the host, act on them once they arrive (a search finds its match, page
keys go as far)."""

from __future__ import annotations

from conftest import BASH_TAB
from test_tui_agent import log_text
from tui_helpers import make_app, screen_text, stop, until


async def printed(pilot, app, command: bytes, last: str) -> None:
    """The bash tab at its prompt has run `command`, whose output ends with `last`."""
    await until(pilot, lambda: app.view.tab_id is not None and screen_text(app).strip(), what="a prompt")
    app.client.input(app.view.tab_id, command + b"\r")
    await until(pilot, lambda: last in screen_text(app), what="the output")


async def test_a_search_typed_before_the_history_arrives_finds_its_match(tmp_path):
    app = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await printed(pilot, app, b"seq 1 3000", "3000")
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


async def test_page_keys_pressed_before_the_history_arrives_keep_their_place(tmp_path):
    """PageUp pressed at once after prefix+[ moved over the rows the UI had (the frames' count
    of history may be a moment old, or 0): when the host's history and screen arrive, the keys
    go as far over them. (The view went back to the bottom: a test that pressed PageUp at once
    found it there one run in three.) Until they arrive, the view stays on the rows it has (it
    moved over rows still to come: on a loaded machine, a whole blank page for a while)."""
    app = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await printed(pilot, app, b"clear; seq 1 3000", "3000")
            mode = app.view.copy
            mode.enter()  # no await before the keys: the answer can only be taken in after them
            for _ in range(3):
                mode.key("pageup", None)
            assert mode.refs
            # Meanwhile the view stays on what it has (the screen), not on rows still to come.
            blank = [y for y in range(app.view.size.height) if not mode.line(mode.top + y)]
            assert not blank, f"blank rows in view before the history came: {blank}"
            await until(pilot, lambda: not mode.refs, what="the history")
            height = app.view.size.height
            shown = "".join(text for text, _ in mode.line(mode.top))
            assert mode.count() - mode.top == 4 * height, (mode.count(), mode.top, height)  # three pages up
            assert shown.isdigit() and int(shown) < 3000 - 2 * height, shown
    finally:
        stop(app)


def bottom_row(app) -> str:
    """What the view draws in its last row (where scrollback mode prompts and answers)."""
    return app.view.render_line(app.view.size.height - 1).text


async def test_a_search_waiting_for_the_history_says_so_then_says_what_it_found(tmp_path):
    """Enter on a search typed before the history has all come: the prompt row went blank and
    stayed blank until the last page arrived (a second or more for 10,000 rows on a loaded
    machine), so the user could not tell a search still to run from one that found its text
    in view; a tmux field test read the screen in that gap. The row says the search is
    waiting, then what it found."""
    app = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await printed(pilot, app, b"seq 1 3000", "3000")
            mode = app.view.copy
            mode.enter()  # no await before the keys: the history can only be taken in after them
            for character in "/qqqnomatch":
                mode.key(character, character)
            mode.key("enter", None)
            assert mode.refs
            assert "searching: qqqnomatch" in bottom_row(app), bottom_row(app)
            await until(pilot, lambda: not mode.refs, what="the history")
            assert "not found: qqqnomatch" in bottom_row(app), bottom_row(app)
    finally:
        stop(app)


async def test_a_search_waiting_for_history_that_cannot_be_read_runs_over_what_is_there(tmp_path, monkeypatch):
    """The host answers a history request it cannot serve with an error (an injected fault in
    the tab's history): the search waiting for it runs over the rows the view has, instead of
    saying "searching" for ever; the error itself is shown."""
    from tikitaka.terminals.screen import Screen

    def failing(self, *args, **kwargs):
        raise RuntimeError("the history could not be read")

    app = make_app(tmp_path, BASH_TAB, bare=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await printed(pilot, app, b"seq 1 30", "30")
            monkeypatch.setattr(Screen, "history_page", failing)
            mode = app.view.copy
            mode.enter()
            for character in "/qqqnomatch":
                mode.key(character, character)
            mode.key("enter", None)
            await until(pilot, lambda: "not found: qqqnomatch" in bottom_row(app), what="the search over what is there")
            assert not mode.refs
            await until(pilot, lambda: "history could not be read" in log_text(app), what="the host's error in the panel")
            mode.key("n", "n")  # the mode goes on: `n` searches again, and says so
            assert "not found: qqqnomatch" in bottom_row(app), bottom_row(app)
            mode.key("q", "q")
            assert not mode.active
    finally:
        stop(app)
