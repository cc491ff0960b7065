"""Painting a terminal view's changed rows at once, without a compositor pass.

A screen frame that changes every row (a flood scrolling past) would otherwise wait for
Textual's next refresh tick and then go through its compositor: every widget under the view
rendered again, cut into chops, joined -- ~7 ms of the UI's time per frame at 140x45,
profiled, on the path from the tab's output to the user's screen. Where nothing covers a row
of the view (no other screen or dialog over it, no toast or tooltip in that row) and the view
has no border, padding or effect of its own, that pass has nothing to decide: each row the
view renders is what the compositor would write there once the view's line filters are
applied (the app's, less the one that would turn a program's ANSI colours into the theme's:
terminal_view). So the rows are rendered by the view, filtered as Textual filters them and
written to the terminal in one synchronized update, straight away (the terminal's cursor is
placed after them: terminal_cursor). (Rows are handed over as segments, not Strips: a Strip
sets up seven caches, and a frame of 44 rows made ~90 of them.)

Of a row a toast shares, the part left of the toast is painted at once and the rest left to
the compositor, which draws the toast over it (a toast stays up for seconds: typing beside it,
as into an agent CLI's input line at the bottom, stays at once). Anything unusual -- a
clipped view, another screen on top, no real terminal (Pilot tests run headless) -- leaves
every row to it: the caller refreshes the rows `paint_rows` hands back.

A tab that prints line after line scrolls every row, and each frame then holds all of them:
`scroll_and_paint` has the terminal scroll the view's rows itself and writes only the rows the
scroll did not bring, as a tmux client does, where the view is as wide as the terminal or the
terminal can scroll the view's columns alone (`outer_margins`). A row the terminal shows
already, as `outer_cells` records it, is not written at all: an Ink CLI draws its whole input
area again at each tick of its spinner, and the frame holds every row it drew.
"""

from __future__ import annotations

from typing import Any, Collection, Sequence

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.segment import Segment
from textual.geometry import Region
from textual.widget import Widget

from .outer_cells import segments_text


def paint_rows(view: Widget, lines: Sequence[tuple[int, list[Segment]]]) -> list[Region]:
    """Write `lines` -- (row in the view, its segments as the view renders them, as wide as the
    view) -- to the terminal now, up to where another widget shares the row (a toast over the
    view's corner: the compositor draws it over the rest). Returns the parts of rows not
    written (view coordinates), for the caller to refresh the usual way: every row when it
    cannot be done safely at all."""
    every = [Region(0, row, view.region.width, 1) for row, _segments in lines]
    free = _free(view)
    if free is None:
        return every
    width = view.region.width
    todo, rest = [], []
    for row, segments in lines:
        if row in free:
            segments, cut = _cropped(segments, free[row])
            rest.append(Region(cut, row, width - cut, 1))
            if not cut:
                continue
        todo.append((row, segments))
    if not todo:
        return every
    _write(view, "", todo, cropped=free)
    return rest


def scroll_and_paint(view: Widget, scroll: int, height: int, lines: Sequence[tuple[int, list[Segment]]]) -> bool:
    """Scroll the view's top `height` rows up `scroll` rows (down, if negative) in the terminal itself, then write
    `lines` (the rows the scroll did not bring: the new ones at the bottom, and any other that
    changed), as a tmux client does for a pane's line feed: a tab printing line after line
    scrolls every row, and writing each of them again cost the terminal ~4 KB a frame (17-33x
    the bytes of a tmux client, bench/outer_bytes.py), which a user over SSH pays for. Only
    where nothing lies over the view, and where it is as wide as the terminal (DECSTBM scrolls
    whole rows) or the terminal has left and right margins to spare the panel beside it
    (`outer_margins`, which many terminals lack). False when it was not done: the caller
    paints every row."""
    free = _free(view)
    region = view.region
    if free is None or free or not 0 < abs(scroll) < height <= region.height or not _settled(view.screen):
        return False
    top, bottom = region.y + 1, region.y + height
    # (Margins, the scroll within them -- SU up, SD down -- the margins reset, which homes the
    # cursor: the paint after places it. The rows the scroll brings in are written over at once.)
    if region.x == 0 and region.width == view.app.size.width:
        head: str | None = f"\x1b[{top};{bottom}r\x1b[{abs(scroll)}{'S' if scroll > 0 else 'T'}\x1b[r"
    else:  # (beside the panel: the view's columns alone, where the terminal has left and right margins)
        margins = getattr(view.app._driver, "margins", None)
        head = margins.scroll(region.x + 1, region.right, top, bottom, scroll) if margins else None
    if head is None:
        return False
    _write(view, head, lines, Region(0, 0, region.width, height))
    return True


def _settled(screen: Any) -> bool:
    """Nothing of the screen waits to be drawn: a scroll moves whatever the terminal shows, so
    a widget gone from the layout but not yet from the terminal (a toast that just expired)
    would move up with the rows and stay there."""
    try:
        return not (screen._layout_required or screen._scroll_required or screen._repaint_required
                    or screen._dirty_widgets or screen._compositor._dirty_regions)
    except AttributeError:  # (Textual's internals moved: no scroll, every row written)
        return False


def _free(view: Widget) -> dict[int, int] | None:
    """`free_widths` of the view, when its rows may be written at once at all (None: not)."""
    app = view.app
    if (app._driver is None or app.is_headless or not app._running or app._closed or app._batch_count
            or not view.is_mounted or app.screen is not view.screen):
        return None
    region = view.region
    return free_widths(view, region) if region and _plain(view) else None


def _write(view: Widget, head: str, todo: Sequence[tuple[int, list[Segment]]], moved: Region | None = None,
           cropped: Collection[int] = ()) -> None:
    """`head` (a scroll), then the rows `todo` rendered as the compositor would, in one
    synchronized update; the compositor's copy of those rows (and of `moved`) is stale after,
    and the app's record of what the terminal shows (`outer_cells`) has them (`cropped`: rows
    written only in part, which it forgets)."""
    app = view.app
    driver = app._driver
    assert driver is not None
    region = view.region
    width, height = region.size
    _base, background = view.background_colors
    filters = view.get_line_filters()
    color_system = app.console._color_system or ColorSystem.TRUECOLOR
    cache = view._styles_cache
    outer_cells = getattr(app, "outer_cells", None)  # (what the terminal shows, for Textual's updates)
    if moved is not None:
        cache.set_dirty(moved)
        if outer_cells is not None:
            outer_cells.forget(region.x, region.right, range(region.y + moved.y, region.y + moved.bottom))
    parts = [head]
    for row, segments in todo:
        if not 0 <= row < height:
            continue
        # The compositor's copy of the row is stale now: it renders it again when it next
        # draws there (a dialog or toast over the view closes, say).
        cache.set_dirty(Region(0, row, width, 1))
        for line_filter in filters:  # the view's, as the compositor applies them (Strip.apply_filter)
            segments = line_filter.apply(segments, background)
        # (Default blanks at the end erased, not written: 4-6 bytes instead of a blank each --
        # beside the panel a scrolling tab's rows are all written again every frame.)
        text, _erased = segments_text(segments, color_system)
        y = region.y + row
        runs = None if outer_cells is None or row in cropped else outer_cells.paint(y, region.x, region.right, text,
                                                                                    segments)
        if runs is None:  # (written whole: a row of a flood, say, which is all new)
            parts.append(f"\x1b[{y + 1};{region.x + 1}H{text}")
        # The terminal shows the rest already: a program that draws again what did not change
        # (an Ink CLI -- Claude Code, Gemini -- its whole input area at each tick of its
        # spinner) costs no bytes for it.
        for column, run in runs or ():
            parts.append(f"\x1b[{y + 1};{column + 1}H{segments_text(run, color_system)[0]}")
        if outer_cells is not None and row in cropped:
            outer_cells.forget(region.x, region.right, (y,))
    x, y = app.screen.outer_size.clamp_offset(app.cursor_position)
    parts.append(f"\x1b[{y + 1};{x + 1}H")  # the terminal's cursor back where Textual keeps it (IME)
    app._begin_update()  # synchronized output, where the terminal has it, as Textual does
    try:
        driver.write("".join(parts))
    finally:
        app._end_update()
    driver.flush()


def _plain(view: Widget) -> bool:
    """Whether Textual's styles cache would hand the view's lines on unchanged: no border,
    outline, padding, tint, hatch or opacity (else its own pass is needed)."""
    styles = view.styles
    return (not any(edge for edge, _color in styles.border) and not any(edge for edge, _color in styles.outline)
            and styles.padding == (0, 0, 0, 0) and not styles.tint.a and styles.opacity == 1.0
            and styles.text_opacity == 1.0 and (not styles.has_rule("hatch") or styles.hatch == "none"))


def free_widths(view: Widget, region: Region) -> dict[int, int] | None:
    """For each row of the view that a widget other than it and its ancestors shares (a toast,
    a tooltip), how many cells from its left are the view's alone; None when the view is not
    whole on the screen."""
    try:
        visible: dict[Any, tuple[Region, Region]] = view.screen._compositor.visible_widgets
    except Exception:  # noqa: BLE001 - Textual's internals moved: take the usual path
        return None
    mine = visible.get(view)
    if mine is None or mine[0] != region or mine[1].intersection(region) != region:
        return None
    below = set(view.ancestors_with_self)
    free: dict[int, int] = {}
    for widget, (shown, _clip) in visible.items():
        if widget not in below and shown.overlaps(region):
            overlap = shown.intersection(region)
            for row in range(overlap.y - region.y, overlap.bottom - region.y):
                free[row] = min(free.get(row, region.width), overlap.x - region.x)
    return free


def _cropped(segments: list[Segment], cells: int) -> tuple[list[Segment], int]:
    """The segments' first `cells` cells, and how many that is: a wide character the edge would
    cut is left out whole (rich's own divide would write half of it as a space)."""
    kept: list[Segment] = []
    taken = 0
    for segment in segments:
        length = segment.cell_length
        if taken + length <= cells:
            kept.append(segment)
            taken += length
            continue
        text = ""
        for char in segment.text:
            size = cell_len(char)
            if taken + size > cells:
                break
            text += char
            taken += size
        if text:
            kept.append(Segment(text, segment.style, segment.control))
        break
    return kept, taken


__all__ = ["paint_rows", "scroll_and_paint"]
