"""What goes down a UI session, as JSON: screen frames built once per tab update and shared by
every UI that watches the tab, and the host's events in wire form. See protocol/README.md.

A screen frame's rows are encoded once, as JSON fragments (`[[text, sgr], ...]` per row); a
session whose UI reads slowly merges newer frames into the one it has not sent yet
(`ScreenFrame.merge`), so what waits for a slow UI is never more than one screenful per tab.
"""

from __future__ import annotations

import json
from typing import Any

from ...protocol.ui import merge_order
from ...terminals.rows import sgr_of
from ..coordinator.events import ConsentNeeded, RunEvent
from ..events import (
    ActorFailed,
    AgentNotice,
    AgentStateChanged,
    BotChat,
    PeerNote,
    PeerStateChanged,
    TabExited,
    TabsChanged,
)

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode_line(line: Any) -> str:
    """A styled row as a JSON array of [text, sgr] pairs. Trailing default blanks are left
    out (a UI pads every row with default cells)."""
    segments = [[text, sgr_of(style)] for text, style in line]
    while segments and not segments[-1][1]:
        text = segments[-1][0].rstrip(" ")
        if text:
            segments[-1][0] = text
            break
        segments.pop()
    return _dumps(segments)


class ScreenFrame:
    """One tab's screen change: metadata plus changed rows as JSON fragments."""

    __slots__ = ("tab", "serial", "full", "meta", "lines", "wraps")

    def __init__(self, tab: int, serial: int, full: bool, meta: dict[str, Any], lines: dict[int, str],
                 wraps: dict[int, bool] | None = None) -> None:
        self.tab, self.serial, self.full, self.meta, self.lines = tab, serial, full, meta, lines
        self.wraps = wraps or {}  # row -> it goes on in the next row (rows of `lines` only; merged alike)

    @classmethod
    def from_update(cls, tab: int, update: Any) -> "ScreenFrame":
        meta = {
            "cols": update.cols, "rows": update.rows, "cursor": list(update.cursor), "title": update.title,
            "alt_screen": update.alt_screen, "bracketed_paste": update.bracketed_paste,
            "app_cursor": update.app_cursor_keys, "history": update.history, "dropped": update.dropped,
            "mouse": update.mouse, "cursor_style": update.cursor_style,
        }
        lines = {row: encode_line(line) for row, line in update.lines.items()}
        return cls(tab, update.serial, update.full, meta, lines, {row: row in update.wrapped for row in update.lines})

    def merge(self, newer: "ScreenFrame") -> "ScreenFrame":
        """This frame (not sent yet) followed by `newer` (which arrived after it): one frame that
        brings a UI to the same screen. Diffs come from consecutive takes of a tab's changed
        rows; a snapshot from `watch` can arrive after diffs built later than it (they travel
        different paths; serials tell). The rule: protocol.ui.merge_order."""
        how = merge_order((self.serial, self.full), (newer.serial, newer.full))
        if how == "newer":
            return newer
        if how == "older":
            return self
        if how == "under":  # the later diffs on top of the late snapshot
            return ScreenFrame(self.tab, self.serial, True, self.meta, {**newer.lines, **self.lines},
                               {**newer.wraps, **self.wraps})
        return ScreenFrame(self.tab, newer.serial, self.full, newer.meta, {**self.lines, **newer.lines},
                           {**self.wraps, **newer.wraps})

    def body(self) -> str:
        rows = ",".join(f'"{row}":{text}' for row, text in sorted(self.lines.items()))
        meta = _dumps(self.meta)[1:-1]
        wrapped = sorted(row for row, on in self.wraps.items() if on)
        extra = f',"wrapped":{_dumps(wrapped)}' if wrapped else ""
        return (f'{{"kind":"screen","tab":{self.tab},"serial":{self.serial},'
                f'"full":{"true" if self.full else "false"},{meta},"lines":{{{rows}}}{extra}}}')


def history_event(ref: int, tab: int, page: Any) -> str:
    """The `history` event answering a UI's `scrollback` request `ref`: a page of the tab's
    history (`terminals.screen_read.HistoryPage`), with the screen of the same moment if asked."""
    rows = ",".join(encode_line(line) for line in page.lines)
    shown = ""
    if page.screen is not None:  # (every row, in order: a snapshot's lines are all of them)
        screen = ",".join(encode_line(page.screen.lines.get(row, ())) for row in range(page.screen.rows))
        shown = (f',"screen":[{screen}],"cursor":{_dumps(list(page.screen.cursor))},'
                 f'"screen_wrapped":{_dumps(sorted(page.screen.wrapped))}')
    return (f'{{"kind":"history","ref":{ref},"tab":{tab},"total":{page.total},"offset":{page.offset},'
            f'"dropped":{page.dropped},"lines":[{rows}],"wrapped":{_dumps(sorted(page.wrapped))}{shown}}}')


def event_body(event: dict[str, Any]) -> str:
    return _dumps(event)


def frame(prefix: bytes, body: str) -> bytes:
    """One line on the wire: `{"id": <the attach request's id>, "event": <body>}`."""
    return prefix + body.encode("utf-8") + b"}\n"


def frame_prefix(request_id: str) -> bytes:
    return b'{"id":' + _dumps(request_id).encode("utf-8") + b',"event":'


def wire_event(event: object) -> dict[str, Any] | None:
    """A host bus event as the UI sees it, or None for events a UI has no use for."""
    if isinstance(event, TabsChanged):
        return {"kind": "tabs", "tabs": [tab.to_json() for tab in event.tabs]}
    if isinstance(event, TabExited):
        return {"kind": "tab_exited", "tab": event.tab_id, "name": event.name, "exit_code": event.exit_code}
    if isinstance(event, BotChat):
        return {"kind": "chat", "sender": event.sender, "text": event.text, "verified": event.verified,
                "time": event.time}
    if isinstance(event, ConsentNeeded):
        return {"kind": "consent", "request_id": event.request_id, "run_id": event.run_id, "tab": event.tab,
                "tool": event.tool, "args": event.args}
    if isinstance(event, RunEvent):
        return {"kind": "run", "run": event.to_json()}
    if isinstance(event, PeerStateChanged):
        return {"kind": "peer", "name": event.name, "state": event.state, "note": event.note}
    if isinstance(event, PeerNote):
        return {"kind": "note", "sender": event.sender, "text": event.note, "level": "warning"}
    if isinstance(event, ActorFailed):
        return {"kind": "note", "sender": event.what, "text": event.error, "level": "error"}
    if isinstance(event, AgentStateChanged):
        return {"kind": "agent_state", "tab": event.tab_id, "name": event.name, "agent": event.kind,
                "state": event.state, "previous": event.previous, "since": event.since, "rule": event.rule}
    if isinstance(event, AgentNotice):
        return {"kind": "agent_notice", "tab": event.tab_id, "name": event.name, "reason": event.reason,
                "text": event.text, "time": event.time}
    return None
