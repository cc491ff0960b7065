"""The UI protocol's messages (see protocol/README.md): what a UI sends up its session, one
JSON object per line, each with its type in `t`. The host checks every message against these
(`protocol.schema.check`); what comes down is described in the README, and how two screen
frames of a tab merge into one is `merge_order` (the host and the UI both merge by it).

A session starts with the `ui.attach` request (protocol.ops.UI_ATTACH) carrying `VERSION`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypedDict

from .schema import Length, Range

VERSION = 3
"""The UI protocol version (2: history rows numbered for good, `dropped` and `start`; 3: the
UI's config.toml checked by the host, `settings` up and `keys` in `hello`). A host refuses a UI
that speaks another one, saying which."""

MAX_MESSAGE = 1024 * 1024  # bytes in one up message (a paste larger than this is cut by the UI)
DEFAULT_FPS = 60
MAX_SETTINGS = 256 * 1024  # characters of config.toml an attach may carry
MAX_PAGE = 10_000  # history rows in one `scrollback` answer (the default history: all of it)
MAX_COLOR = 32  # characters of a colour in `colors` (`rgb:RRRR/GGGG/BBBB` is 18)

TabId = Annotated[int, Range(1)]
Cols = Annotated[int, Range(2, 1000)]
Rows = Annotated[int, Range(1, 500)]


# -- screen frames (down) --------------------------------------------------------------------

Merge = Literal["newer", "older", "under", "over"]


def merge_order(older: tuple[int, bool], newer: tuple[int, bool]) -> Merge:
    """How a screen frame not sent (or drawn) yet takes a newer one of the same tab, each given
    as (serial, full): keep the `newer` or the `older` whole, lay the newer's rows `under` the
    older's (a snapshot that came after diffs built later than it; the result is full), or
    `over` them (consecutive diffs: every row that changed after one is in the next; the
    result is full if the older was). The host merges frames for a UI that reads slowly by
    this rule, and the UI the ones it has not drawn yet (README.md, "Screen frames")."""
    (old_serial, old_full), (new_serial, new_full) = older, newer
    if new_full:
        if new_serial >= old_serial:
            return "newer"
        return "older" if old_full else "under"
    return "older" if new_serial <= old_serial else "over"


# -- up ---------------------------------------------------------------------------------------

class _Input(TypedDict):
    t: Literal["input"]
    tab: TabId


class Input(_Input, total=False):
    """Bytes for the program in the tab, exactly as the outer terminal sent them: `text` when
    they are UTF-8, else `b64` (base64)."""

    text: str
    b64: str


class _Paste(TypedDict):
    t: Literal["paste"]
    tab: TabId
    text: str


class Paste(_Paste, total=False):
    """Pasted text: the host brackets it (ESC[200~ ... ESC[201~) when the program asked. A
    paste larger than a message goes in pieces, each but the last with `more`: the program
    gets one paste (added within version 3)."""

    more: bool


class _Mouse(TypedDict):
    t: Literal["mouse"]
    tab: TabId
    action: Literal["press", "release", "drag", "move", "wheel_up", "wheel_down"]
    x: Annotated[int, Range(0, 1000)]  # cell column in the tab, 0-based
    y: Annotated[int, Range(0, 1000)]  # cell row in the tab, 0-based


class Mouse(_Mouse, total=False):
    """A mouse event over the tab. The host encodes it as the program asked (DECSET 1000/1002/
    1003 with SGR, urxvt, UTF-8 or legacy bytes: `terminals.mouse`) and drops what it did not ask
    for; the wheel on the alternate screen of a program that did not ask becomes arrow keys.
    A `screen` frame's `mouse` (0, 9, 1000, 1002, 1003) says whether to send events at all (a
    UI selects text and scrolls back itself when it is 0). A program's OSC 52 (clipboard set)
    comes down as a `clipboard` event: {"kind": "clipboard", "tab": N, "text": "..."}."""

    button: Annotated[int, Range(0, 11)]  # 0 left, 1 middle, 2 right
    mods: list[Literal["shift", "alt", "ctrl"]]


class Resize(TypedDict):
    """The size this UI shows a tab at. The tab's PTY follows the most recently active UI."""

    t: Literal["resize"]
    cols: Cols
    rows: Rows


class Watch(TypedDict):
    """Show this tab: a full `screen` frame follows, then only changed rows."""

    t: Literal["watch"]
    tab: TabId


class _Scrollback(TypedDict):
    t: Literal["scrollback"]
    ref: int
    tab: TabId
    rows: Annotated[int, Range(1, MAX_PAGE)]


class Scrollback(_Scrollback, total=False):
    """A page of history: up to `rows` history rows from `offset` rows above the live screen's
    top (a view scrolled back that far; 0 when left out), or from the row numbered `start`.
    Rows are numbered for good: `dropped` (in frames and pages: the rows dropped so far from
    the oldest end, once the history is full or erased) plus the row's index from the oldest
    kept -- so a view keeps its place while output moves the screen on. A `history` event
    answers, with the offset used (at most the history's length; the oldest row kept when
    `start` was dropped)."""

    offset: Annotated[int, Range(0)]
    start: Annotated[int, Range(0)]
    screen: bool  # the screen's rows and cursor too, from the same moment (a view that must not tear)


class Consent(TypedDict):
    t: Literal["consent"]
    request_id: Annotated[str, Length(min=1, max=64)]
    decision: Literal["once", "always", "deny"]


class _Call(TypedDict):
    t: Literal["call"]
    ref: int
    op: Annotated[str, Length(min=1, max=64)]


class Call(_Call, total=False):
    """Any quick op of protocol.ops (not the long or streaming ones); answered by a `reply`."""

    args: dict[str, Any]


class Ask(TypedDict):
    """A request for the coordinator; its progress arrives as `run` events."""

    t: Literal["ask"]
    text: Annotated[str, Length(min=1)]


class _Colors(TypedDict):
    t: Literal["colors"]
    ref: int  # (an older host refuses the message with an `error` of this ref, which a UI ignores)


class Colors(_Colors, total=False):
    """The default colours of the UI's terminal, as it answered OSC 10 (`fg`) and OSC 11 (`bg`):
    `rgb:RRRR/GGGG/BBBB` (1-4 hex digits each), or left out when it did not answer. A tab's
    program that asks for them gets those of the latest UI's terminal."""

    fg: Annotated[str, Length(max=MAX_COLOR)]
    bg: Annotated[str, Length(max=MAX_COLOR)]


UP: dict[str, type] = {
    "input": Input, "paste": Paste, "mouse": Mouse, "resize": Resize, "watch": Watch,
    "scrollback": Scrollback, "consent": Consent, "call": Call, "ask": Ask, "colors": Colors,
}
# A colour as terminals answer OSC 10/11: the only form a tab's program is handed.
COLOR = re.compile(r"rgb:[0-9a-fA-F]{1,4}/[0-9a-fA-F]{1,4}/[0-9a-fA-F]{1,4}")


# -- the ui.attach op's own shapes (protocol.ops.UI_ATTACH) ---------------------------------

class _UiAttach(TypedDict):
    version: Annotated[int, Range(1)]  # protocol.ui.VERSION


class UiAttach(_UiAttach, total=False):
    client: Annotated[str, Length(max=200)]  # e.g. "tiki 0.1.0", for the host's log
    cols: Annotated[int, Range(2, 1000)]  # the size this UI shows tabs at
    rows: Annotated[int, Range(1, 500)]
    fps: Annotated[int, Range(1, 240)]  # at most this many screen frames a second (default 60)
    tab: Annotated[int, Range(1)] | None  # watch this tab at once
    # The text of the UI's config.toml ("" when it has none): the host checks it as it checks
    # its own and refuses the attach, naming the fault, if it is not valid; `hello` then
    # carries its [keys]. (The UI needs no settings models of its own: ~0.1 s of its start.)
    settings: Annotated[str, Length(max=MAX_SETTINGS)]


class UiDetached(TypedDict):
    detached: str  # why the session ended


class UiInfo(TypedDict):
    """An attached UI, as `host.info` lists it."""

    session: int
    client: str  # what it said it is ("tiki (pid 1234)")
    pid: int | None  # its process, where the system says who is at the other end of the socket
    tty: str | None  # the terminal it runs in, where the system says (Linux)
    size: list[int] | None  # [cols, rows] it shows tabs at
    tab: str | None  # the tab it shows
    latest: bool  # the one used last (a tab several UIs show takes its size)
    attached_s: float  # seconds since it attached
    idle_s: float  # seconds since it was last used (typed into, clicked, resized, switched tabs)
