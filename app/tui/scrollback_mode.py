"""Scrollback mode (prefix+`[`): the tab's history and screen read with keys, as tmux's copy mode.

On entry the history is fetched from the host with the screen of the same moment, in one
answer (up to 10,000 rows; older ones follow by their numbers), and kept here: output that
comes meanwhile (an agent still at work in the tab, a flood that turns the whole history over
in milliseconds) neither moves what is being read nor tears it, and shows once the mode is
left. Keys pressed before the answer are pressed again over it; those that move wait for it
(the rows they would move over are not here yet: the view stays on the screen it has). Rows
are numbered over history and screen together (0 is the oldest history row), as
`terminals.selection` and `terminals.search` number them. A cursor starts where the tab's
cursor is; the view follows it. Keys: arrows or h j k l move, PageUp/PageDown (or ctrl+b/f)
move the view and the cursor a screen, as tmux does, g/G (Home/End) go to the oldest/newest row, `/` and `?` type a search forward
or backward (Enter runs it, Escape drops it), `n`/`N` repeat it the same/other way, `v` or
space starts a selection at the cursor, `y` or Enter copies it (then leaves, like tmux),
q or Escape leave. Any other key leaves too and goes to the program, as typing does. The top
right corner shows the position, `[120/10000]` (rows scrolled back / rows of history), and the
search being typed shows at the bottom.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from ...protocol import ui
from ...terminals.search import Search, indicator
from ...terminals.selection import Point, Row, Selection, row_from_text

PAGE = ui.MAX_PAGE  # rows a scrollback request may ask for
CURSOR = Style(reverse=True)
MATCH = Style(bgcolor="yellow", color="black")
BAR = Style(bgcolor="yellow", color="black", bold=True)
_JUMPS = ("g", "G", "home", "end", "n", "N")  # keys that move the cursor by more than a row


class ScrollbackMode:
    def __init__(self, view: Any) -> None:
        self.view = view
        self.active = False
        self.history: dict[int, Any] = {}  # history row -> line, as pages arrive
        self.total = 0  # rows of history
        self.base = 0  # the number of the oldest of them (protocol/README.md: history rows)
        self.screen: list[Any] = []  # the tab's screen rows when the history was counted
        self.wrapped: set[int] = set()  # rows (history and screen) that go on in the next one
        self.refs: dict[int, int] = {}  # scrollback request ref -> first row it asked for
        self.cursor = Point(0, 0)
        self.top = 0  # the row shown at the top of the view
        self.selection: Selection | None = None
        self.search: Search | None = None
        self.match = None
        self.prompt: str | None = None  # "/query" or "?query" while a search is typed
        self.said: str | None = None  # shown in the prompt's row until the next key ("not found")
        self.queued: str | None = None  # a search submitted before the history arrived
        self.early: list[tuple[str, str | None]] | None = None  # keys pressed before the snapshot came

    # -- rows ---------------------------------------------------------------------------------

    def count(self) -> int:
        return self.total + len(self.screen)

    def line(self, row: int) -> Any:
        if row < self.total:
            return self.history.get(row, ())
        screen = self.screen
        return screen[row - self.total] if 0 <= row - self.total < len(screen) else ()

    def row(self, row: int) -> Row:
        return row_from_text("".join(text for text, _ in self.line(row)), max(1, self.view.tab_size[0]),
                             row in self.wrapped)

    # -- entering, leaving, the history -------------------------------------------------------

    def enter(self) -> None:
        view = self.view
        if view.tab_id is None or view.client is None:
            return
        self.active, self.history, self.refs = True, {}, {}
        self.total, self.selection, self.search, self.match, self.prompt = view.history, None, None, None, None
        self.queued, self.early = None, []
        self._place(view.rows, view.cursor, view.wrapped)  # (until the answer: the frames' rows and count)
        # The newest PAGE rows of history and the screen, all from one moment.
        self.refs[view.client.scrollback(view.tab_id, PAGE, offset=PAGE, screen=True)] = -1
        view.refresh()

    def _place(self, screen: list[Any], cursor: Any, wrapped: Any) -> None:
        """`screen` taken as the bottom of the history (`wrapped`: its rows that go on in the
        next); the cursor where the tab's is (`cursor`); the screen in view."""
        self.screen = list(screen)
        self.wrapped = {self.total + row for row in wrapped}  # (history rows come with their pages)
        self.cursor = Point(self.total + cursor[0], cursor[1])
        self.top = self.total

    def _fetch(self, total: int) -> None:
        for start in range(0, total, PAGE):  # by row number: output meanwhile moves no page
            ref = self.view.client.scrollback(self.view.tab_id, min(PAGE, total - start), start=self.base + start)
            self.refs[ref] = start

    def take_page(self, page: dict[str, Any]) -> bool:
        """A `history` page: True if it was one of ours."""
        start = self.refs.pop(page["ref"], None)
        if start is None:
            return False
        if self.active and start < 0:  # the snapshot: the screen, the count, the newest rows
            self.total, self.base = page["total"], page["dropped"]
            self._place(page["screen"], page["cursor"], page.get("screen_wrapped", ()))
            self._fetch(self._store(page))  # older rows than one answer holds (a history above PAGE rows)
            self._press_early_keys_again()
        elif self.active:
            self._store(page)
        if self.active and self.queued is not None and not self.refs:
            self._search(self.queued)
        self.view.refresh()
        return True

    def refused(self, ref: Any) -> bool:
        """The host could not serve one of our history requests (its error says why): that
        page will not come. What waited for the history goes on over the rows there are (a
        refused snapshot leaves the frames' rows in view). True if the request was ours."""
        start = self.refs.pop(ref, None)
        if start is None:
            return False
        if self.active and start < 0:
            self._press_early_keys_again()
        if self.active and self.queued is not None and not self.refs:
            self._search(self.queued)
        self.view.refresh()
        return True

    def _press_early_keys_again(self) -> None:
        """The snapshot came, or will not: keys pressed before moved over the frames' rows (as
        many as the UI had), or not at all; pressed again, over the rows there are now."""
        early, self.early = self.early or [], None
        self.selection, self.search, self.match, self.prompt, self.queued = None, None, None, None, None
        for key, character in early:
            self.key(key, character)

    def _store(self, page: dict[str, Any]) -> int:
        """Keep a page's rows where their numbers put them (rows dropped since the snapshot
        are not in it: they stay blank); returns the first one's row."""
        first = page["dropped"] + page["total"] - page["offset"] - self.base
        kept = max(0, self.total - first)
        self.history.update(enumerate(page["lines"][:kept], first))
        self.wrapped.update(first + i for i in page.get("wrapped", ()) if i < kept)
        return first

    def leave(self) -> None:
        self.active, self.prompt = False, None
        self.view.refresh()

    # -- keys ---------------------------------------------------------------------------------

    def key(self, key: str, character: str | None) -> bool:
        """Handle a key; False when it leaves the mode and belongs to the program."""
        if self.early is not None:
            self.early.append((key, character))
        if self.said is not None:
            self.said = None
            self.view.refresh()
        if self.prompt is not None:
            return self._prompt_key(key, character)
        height = max(1, self.view.size.height)
        row, col = self.cursor
        moves = {"up": (-1, 0), "k": (-1, 0), "down": (1, 0), "j": (1, 0), "left": (0, -1), "h": (0, -1),
                 "right": (0, 1), "l": (0, 1)}
        pages = {"pageup": -height, "ctrl+b": -height, "pagedown": height, "ctrl+f": height}
        if self.early is not None and (key in moves or key in pages or key in _JUMPS or character in _JUMPS):
            return True  # (moved once the rows are here: until then the view stays on the screen)
        if key in moves:
            drow, dcol = moves[key]
            last = max(0, self.view.tab_size[0] - 1)
            if dcol > 0 and col >= last and row + 1 < self.count():  # on into the next row, as tmux does
                drow, dcol = 1, -col
            elif dcol < 0 and col == 0 and row > 0:  # back to the end of the row above
                drow, dcol = -1, last
            self._move(Point(row + drow, col + dcol), step=dcol)
        elif key in pages:  # the view goes a page, the cursor with it (where it was on the screen)
            self._move(Point(row + pages[key], col), scroll=pages[key])
        elif key in ("g", "home"):
            self._move(Point(0, 0))
        elif key in ("G", "end") or character == "G":
            self._move(Point(self.count() - 1, 0))
        elif character in ("/", "?"):
            self.prompt = character
        elif character in ("n", "N") and self.search is not None:
            self._show(self.search.next() if character == "n" else self.search.previous())
        elif character in ("v", " "):
            self.selection = Selection(self.row, self.count)
            self.selection.start(self.cursor)
        elif character == "y" or key == "enter":
            if self.selection is not None and self.selection.active:
                self.view.app.copy_selection(self.selection.text())
            self.leave()
        elif key in ("escape", "q") or character == "q":
            self.leave()
        else:
            self.leave()
            return False
        self.view.refresh()
        return True

    def _prompt_key(self, key: str, character: str | None) -> bool:
        prompt = self.prompt or "/"
        if key == "escape":
            self.prompt = None
        elif key == "enter":
            self.prompt = None
            if len(prompt) > 1 and self.refs:  # typed before the history arrived: search it once it has
                self.queued = prompt
            elif len(prompt) > 1:
                self._search(prompt)
        elif key == "backspace":
            self.prompt = prompt[:-1] if len(prompt) > 1 else None
        elif character and character.isprintable():
            self.prompt = prompt + character
        self.view.refresh()
        return True

    def _search(self, prompt: str) -> None:
        self.queued = None
        self.search = Search(self.row, self.count())
        self._show(self.search.search(prompt[1:], self.cursor, backward=prompt[0] == "?"))

    def _show(self, match: Any) -> None:
        self.match = match
        if match is not None:
            self._move(match.start)
        elif self.search is not None:  # (as less and vim say: else a failed search looks like one in view)
            self.said = f"not found: {self.search.query}"

    def _move(self, point: Point, scroll: int = 0, step: int = 0) -> None:
        """The cursor to `point` (a whole character: on the right half of a wide one it goes on
        to the next character when moving right, `step` > 0, else back to the wide one)."""
        height = max(1, self.view.size.height)
        self.top = max(0, min(self.top + scroll, max(0, self.count() - height)))
        row = max(0, min(point.row, self.count() - 1))
        col = max(0, min(point.col, max(0, self.view.tab_size[0] - 1)))
        cells = self.row(row).cells
        if step > 0:
            while col < len(cells) - 1 and not cells[col]:
                col += 1
        while col > 0 and col < len(cells) and not cells[col]:
            col -= 1
        self.cursor = Point(row, col)
        if self.selection is not None and self.selection.active:
            self.selection.extend(self.cursor)
        if row < self.top:
            self.top = row
        elif row >= self.top + height:
            self.top = row - height + 1
        self.top = max(0, min(self.top, max(0, self.count() - height)))

    # -- drawing ------------------------------------------------------------------------------

    def _said(self) -> str | None:
        """The bottom row's words: the prompt being typed, a search waiting for the history
        (else the row goes blank until the last page comes, and looks like a search done), or
        what the last one found."""
        if self.prompt is not None:
            return self.prompt
        if self.queued is not None:
            return f"searching: {self.queued[1:]} (the history is still arriving)"
        return self.said

    def render(self, y: int, width: int, strip_of: Any) -> Strip:
        row = self.top + y
        strip = strip_of(self.line(row), width)
        spans: list[tuple[int, int, Style]] = []
        if self.selection is not None and self.selection.active:
            first, last = self.selection.bounds()
            if first.row <= row <= last.row:
                spans.append((first.col if row == first.row else 0, last.col + 1 if row == last.row else width, CURSOR))
        match = self.match
        if match is not None and match.start.row <= row <= match.end.row:
            spans.append((match.start.col if row == match.start.row else 0,
                          match.end.col + 1 if row == match.end.row else width, MATCH))
        if row == self.cursor.row:  # as wide as the character under it (a CJK one takes two)
            cells, end = self.row(row).cells, self.cursor.col + 1
            while end < len(cells) and not cells[end]:
                end += 1
            spans.append((self.cursor.col, end, CURSOR))
        for start, end, style in spans:
            if start < end and start < width:
                before, chosen, after = strip.divide([start, min(end, width), width])
                chosen = Strip([Segment(s.text, (s.style or Style()) + style) for s in chosen])
                strip = Strip.join([before, chosen, after])
        label = None
        if y == 0:
            label = indicator(max(0, self.total - self.top), self.total)
        elif y == self.view.size.height - 1 and (said := self._said()) is not None:
            return Strip([Segment(said, BAR)]).extend_cell_length(width, BAR).crop(0, width)
        if label and len(label) < width:
            head = strip.crop(0, width - len(label))
            strip = Strip.join([head, Strip([Segment(label, BAR)])])
        return strip
