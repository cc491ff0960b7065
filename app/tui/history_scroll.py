"""The terminal view scrolled back with the wheel (or Shift+PageUp/PageDown, for key events):
history fetched from the host a page at a time (`scrollback`), drawn above the live rows.

Scrolled back, the view stays on its lines while output comes, as tmux's copy mode does. A
page's offset counts rows up from the screen's top, which moves on with every line printed,
so the view keeps the history row at its top instead (counted from the oldest, which stays put
until the scrollback is full) and asks again for the same lines when the history grows; the
next step moves from them. Typing returns to the live screen (`to_live`).
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
        self._scroll_target = 0  # the offset the latest scroll asked for
        self._scroll_ref: int | None = None
        self._anchor: int | None = None  # the history row at the view's top, once a page said
        self._anchor_total = 0  # the history length the offset was reckoned against

    def to_live(self) -> None:
        if self.scroll_offset_rows or self._scroll_target:
            self._init_scroll()
            self.refresh()

    def _scroll(self, rows: int) -> None:
        if self.client is None or self.tab_id is None:
            return
        if self._anchor is None:  # from the live screen (or before the first answer): by offset
            # Key repeats arrive faster than pages: step from the target asked for last.
            target = max(0, self._scroll_target + rows)
        else:  # from the lines shown, wherever the screen went meanwhile
            self._anchor = max(0, self._anchor - rows)
            target = self._anchor_total - self._anchor
        if target <= 0:
            self.to_live()
        elif target != self._scroll_target:
            self._ask(target)

    def _keep_anchored(self, total: int) -> None:
        """A frame says the history grew to `total` while scrolled back: ask again for the
        same lines, now further up."""
        if self._anchor is not None and total > self._anchor_total:
            self._anchor_total = total
            if total - self._anchor != self._scroll_target:
                self._ask(total - self._anchor)

    def _ask(self, offset: int) -> None:
        if self.client is not None and self.tab_id is not None:
            self._scroll_target = offset
            self._scroll_ref = self.client.scrollback(self.tab_id, offset, self.size.height)

    def apply_history(self, page: dict[str, Any]) -> None:
        """A `history` page: shown if it answers the latest scroll."""
        if self.copy.take_page(page):
            return
        if page["ref"] != self._scroll_ref or page["tab"] != self.tab_id:
            return  # a newer scroll is on its way, or another tab's
        self.history_rows, self.history = page["lines"], page["total"]
        self.scroll_offset_rows = self._scroll_target = page["offset"]
        self._anchor_total, first = page["total"], page["total"] - page["offset"]
        if self._anchor is None:
            self._anchor = first
        elif first != self._anchor and page["total"] > self._anchor:
            self._ask(page["total"] - self._anchor)  # more came between question and answer: again
        self.refresh()


__all__ = ["HistoryScrollMixin"]
