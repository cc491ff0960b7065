"""The terminal view scrolled back with the wheel (or Shift+PageUp/PageDown, for key events):
history fetched from the host a page at a time (`scrollback`), drawn above the live rows.

Scrolled back, the view stays on its lines while output comes, as tmux's copy mode does. A
page's offset counts rows up from the screen's top, which moves on with every line printed,
so the view keeps the number of the history row at its top instead (rows are numbered for
good: protocol/README.md, history rows) and asks again for the page from that row whenever a
frame says the history moved; the next step moves from it. Once the row falls off the oldest
end, the view shows the oldest row kept. Typing returns to the live screen (`to_live`).
"""

from __future__ import annotations

from typing import Any


class HistoryScrollMixin:
    client: Any
    tab_id: int | None
    history: int
    copy: Any
    size: Any
    refresh: Any

    def _init_scroll(self) -> None:
        self.scroll_offset_rows = 0  # 0 = live; N = N rows up into history
        self.history_rows: list[list] = []
        self.history_wrapped: frozenset[int] = frozenset()  # of history_rows: those that go on in the next
        self._scroll_target = 0  # the offset the latest scroll asked for
        self._scroll_ref: int | None = None
        self._anchor: int | None = None  # the number of the history row at the view's top, once a page said
        self._end = 0  # the number the next history row will get (dropped + history), as last told

    def to_live(self) -> None:
        if self.scroll_offset_rows or self._scroll_target:
            self._init_scroll()
            self.refresh()

    def _scroll(self, rows: int) -> None:
        """`rows` up (down when negative)."""
        if self.client is None or self.tab_id is None:
            return
        if self._anchor is None:  # from the live screen (or before the first answer): by offset
            # Key repeats arrive faster than pages: step from the target asked for last.
            target = max(0, self._scroll_target + rows)
            if target <= 0:
                self.to_live()
            elif target != self._scroll_target:
                self._ask(target)
            return
        # From the row shown, wherever the screen went meanwhile; not above the oldest kept.
        anchor = max(self._anchor - rows, self._end - self.history)
        if anchor >= self._end:
            self.to_live()
        elif anchor != self._anchor:
            self._anchor = anchor
            self._ask(self._end - anchor, anchor)

    def _keep_anchored(self, total: int, dropped: int) -> None:
        """A frame says the history is `total` rows after `dropped`: ask again for the page
        from the row at the view's top (or the oldest kept, if that one is gone)."""
        end = dropped + total
        if self._anchor is None or end == self._end:
            return
        self._end, self._anchor = end, max(self._anchor, dropped)
        if self._anchor >= end:
            self.to_live()  # (the history was erased)
        else:
            self._ask(end - self._anchor, self._anchor)

    def _ask(self, offset: int, start: int | None = None) -> None:
        if self.client is not None and self.tab_id is not None:
            self._scroll_target = offset
            where = {"offset": offset} if start is None else {"start": start}
            self._scroll_ref = self.client.scrollback(self.tab_id, self.size.height, **where)

    def apply_history(self, page: dict[str, Any]) -> None:
        """A `history` page: shown if it answers the latest scroll."""
        if self.copy.take_page(page):
            return
        if page["ref"] != self._scroll_ref or page["tab"] != self.tab_id:
            return  # a newer scroll is on its way, or another tab's
        if not page["offset"]:
            self.to_live()  # nothing above the screen (any more)
            return
        self.history_rows, self.history = page["lines"], page["total"]
        self.history_wrapped = frozenset(page.get("wrapped", ()))
        self.scroll_offset_rows = self._scroll_target = page["offset"]
        self._end = page["dropped"] + page["total"]
        self._anchor = self._end - page["offset"]
        self.refresh()


__all__ = ["HistoryScrollMixin"]
