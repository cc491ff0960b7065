"""A long line that wrapped, scrolled far back, over the UI protocol of a real host: its rows
are still marked as going on in the next one, so a copy or a search in scrollback joins them
without a newline (tmux keeps the mark for its whole history). Only the newest 1,000 history
rows, those pyavt still holds, were marked; older ones came back as lines of their own."""

from __future__ import annotations

from conftest import BASH_TAB
from ui_protocol_helpers import Session


def test_a_wrapped_line_keeps_its_wrap_mark_however_far_back_it_is(serve):
    host = serve(BASH_TAB)
    session = Session(host.env, 80, 24)
    sh = session.tabs["sh"]
    session.client.watch(sh)
    session.next("screen")
    # A 200-column line (three rows at 80: the first two go on), 3,000 short lines, another long
    # one, 300 more: the first ends up past the 1,000 rows pyavt keeps, the second among them.
    session.client.input(sh, b"clear; printf 'OLD%0197d\\n' 7; seq -f a%04g 1 3000; "
                             b"printf 'NEW%0197d\\n' 8; seq -f b%04g 1 300\r")
    session.until_screen("b0300")
    ref = session.client.scrollback(sh, 1, offset=0)
    total = session.next("history", where=lambda e: e["ref"] == ref)["total"]
    for name, after in (("OLD", "a0001"), ("NEW", "b0001")):
        ref = session.client.scrollback(sh, 4000, offset=total)  # the whole history, oldest first
        page = session.next("history", where=lambda e, ref=ref: e["ref"] == ref)
        texts = ["".join(t for t, _ in line) for line in page["lines"]]
        at = next(i for i, text in enumerate(texts) if text.startswith(name))
        assert texts[at + 2].rstrip().endswith("7" if name == "OLD" else "8") and texts[at + 3].startswith(after)
        assert {at, at + 1} <= set(page["wrapped"]) and at + 2 not in page["wrapped"], (name, at, total)
    assert len(page["wrapped"]) == 4  # (those two lines' first rows, nothing else)
