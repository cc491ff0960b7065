"""Painting a terminal view's changed rows at once, without a compositor pass.

A screen frame that changes every row (a flood scrolling past) would otherwise wait for
Textual's next refresh tick and then go through its compositor: every widget under the view
rendered again, cut into chops, joined -- ~7 ms of the UI's time per frame at 140x45,
profiled, on the path from the tab's output to the user's screen. When nothing covers the
view (no other screen, dialog, toast or tooltip over it) and it has no border, padding or
effect of its own, that pass has nothing to decide: each row the view renders is what the
compositor would write there once the app's line filters (the theme's ANSI colours) are
applied. So the rows are rendered by the view, filtered as Textual filters them and written to
the terminal in one synchronized update, straight away. (Rows are handed over as segments, not
Strips: a Strip sets up seven caches, and a frame of 44 rows made ~90 of them.)

Anything unusual -- a covered or clipped view, another screen on top, no real terminal (Pilot
tests run headless) -- returns False and the caller refreshes the rows the usual way.
"""

from __future__ import annotations

from typing import Any, Sequence

from rich.color import ColorSystem
from rich.segment import Segment
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


def paint_rows(view: Widget, lines: Sequence[tuple[int, list[Segment]]]) -> bool:
    """Write `lines` -- (row in the view, its segments as the view renders them, as wide as the
    view) -- to the terminal now; False if that cannot be done safely, and nothing was written."""
    app = view.app
    driver = app._driver
    if (driver is None or app.is_headless or not app._running or app._closed or app._batch_count
            or not view.is_mounted or app.screen is not view.screen):
        return False
    region = view.region
    if not region or not _plain(view) or not _uncovered(view, region):
        return False
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
    return True


def _plain(view: Widget) -> bool:
    """Whether Textual's styles cache would hand the view's lines on unchanged: no border,
    outline, padding, tint, hatch or opacity (else its own pass is needed)."""
    styles = view.styles
    return (not any(edge for edge, _color in styles.border) and not any(edge for edge, _color in styles.outline)
            and styles.padding == (0, 0, 0, 0) and not styles.tint.a and styles.opacity == 1.0
            and styles.text_opacity == 1.0 and (not styles.has_rule("hatch") or styles.hatch == "none"))


def _uncovered(view: Widget, region: Region) -> bool:
    """Whether the view is whole on the screen and no widget but its ancestors shares its cells."""
    try:
        visible: dict[Any, tuple[Region, Region]] = view.screen._compositor.visible_widgets
    except Exception:  # noqa: BLE001 - Textual's internals moved: take the usual path
        return False
    mine = visible.get(view)
    if mine is None or mine[0] != region or mine[1].intersection(region) != region:
        return False
    below = set(view.ancestors_with_self)
    return not any(widget not in below and shown.overlaps(region) for widget, (shown, _clip) in visible.items())


__all__ = ["paint_rows"]
