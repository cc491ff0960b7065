"""Painting a terminal view's changed rows at once, without a compositor pass.

A screen frame that changes every row (a flood scrolling past) would otherwise wait for
Textual's next refresh tick and then go through its compositor: every widget under the view
rendered again, cut into chops, joined -- ~7 ms of the UI's time per frame at 140x45,
profiled, on the path from the tab's output to the user's screen. Where nothing covers a row
of the view (no other screen or dialog over it, no toast or tooltip in that row) and the view
has no border, padding or effect of its own, that pass has nothing to decide: each row the
view renders is what the compositor would write there once the app's line filters (the
theme's ANSI colours) are applied. So the rows are rendered by the view, filtered as Textual
filters them and written to the terminal in one synchronized update, straight away. (Rows are
handed over as segments, not Strips: a Strip sets up seven caches, and a frame of 44 rows made
~90 of them.)

Rows a toast shares are left to the compositor, which draws the toast over them (a toast
stays up for seconds: typing in the rows above it stays at once). Anything unusual -- a
clipped view, another screen on top, no real terminal (Pilot tests run headless) -- leaves
every row to it: the caller refreshes the rows `paint_rows` hands back.
"""

from __future__ import annotations

from typing import Any, Sequence

from rich.color import ColorSystem
from rich.segment import Segment
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


def paint_rows(view: Widget, lines: Sequence[tuple[int, list[Segment]]]) -> list[int]:
    """Write `lines` -- (row in the view, its segments as the view renders them, as wide as the
    view) -- to the terminal now, but for rows another widget shares (a toast over the view's
    corner: the compositor draws it over them). Returns the rows not written, for the caller to
    refresh the usual way: all of them when it cannot be done safely at all."""
    app = view.app
    driver = app._driver
    rows = [row for row, _segments in lines]
    if (driver is None or app.is_headless or not app._running or app._closed or app._batch_count
            or not view.is_mounted or app.screen is not view.screen):
        return rows
    region = view.region
    covered = _covered_rows(view, region) if region and _plain(view) else None
    if covered is None:
        return rows
    lines = [(row, segments) for row, segments in lines if row not in covered]
    if not lines:
        return rows
    width, height = region.size
    _base, background = view.background_colors
    filters = view.get_line_filters()
    color_system = app.console._color_system or ColorSystem.TRUECOLOR
    render = Strip.render_style
    cache = view._styles_cache
    parts = []
    for row, segments in lines:
        if not 0 <= row < height:
            continue
        # The compositor's copy of the row is stale now: it renders it again when it next
        # draws there (a dialog or toast over the view closes, say).
        cache.set_dirty(Region(0, row, width, 1))
        for line_filter in filters:  # the app's, e.g. the theme's ANSI colours (Strip.apply_filter)
            segments = line_filter.apply(segments, background)
        parts.append(f"\x1b[{region.y + row + 1};{region.x + 1}H")
        parts.extend(text if style is None else render(style, text, color_system)
                     for text, style, _control in segments)  # as Strip.render
    x, y = app.screen.outer_size.clamp_offset(app.cursor_position)
    parts.append(f"\x1b[{y + 1};{x + 1}H")  # the terminal's cursor back where Textual keeps it (IME)
    app._begin_update()  # synchronized output, where the terminal has it, as Textual does
    try:
        driver.write("".join(parts))
    finally:
        app._end_update()
    driver.flush()
    return [row for row in rows if row in covered]


def _plain(view: Widget) -> bool:
    """Whether Textual's styles cache would hand the view's lines on unchanged: no border,
    outline, padding, tint, hatch or opacity (else its own pass is needed)."""
    styles = view.styles
    return (not any(edge for edge, _color in styles.border) and not any(edge for edge, _color in styles.outline)
            and styles.padding == (0, 0, 0, 0) and not styles.tint.a and styles.opacity == 1.0
            and styles.text_opacity == 1.0 and (not styles.has_rule("hatch") or styles.hatch == "none"))


def _covered_rows(view: Widget, region: Region) -> set[int] | None:
    """The view's rows that a widget other than it and its ancestors shares cells with (a toast,
    a tooltip); None when the view is not whole on the screen."""
    try:
        visible: dict[Any, tuple[Region, Region]] = view.screen._compositor.visible_widgets
    except Exception:  # noqa: BLE001 - Textual's internals moved: take the usual path
        return None
    mine = visible.get(view)
    if mine is None or mine[0] != region or mine[1].intersection(region) != region:
        return None
    below = set(view.ancestors_with_self)
    covered: set[int] = set()
    for widget, (shown, _clip) in visible.items():
        if widget not in below and shown.overlaps(region):
            overlap = shown.intersection(region)
            covered.update(range(overlap.y - region.y, overlap.bottom - region.y))
    return covered


__all__ = ["paint_rows"]
