"""Telling the user about tabs that need them (issue 12): the badges of the tab bar, toasts, and
notifications written to the user's own terminal -- the outer terminal this TUI runs in.

The host decides *what* is news (`agent_notice` events: a tab asks for its user, its agent
finished working, its program printed a notification of its own) and sends its `[notify]`
settings in `hello`; this module decides *how* the user hears of it, by those settings:

- a badge on the tab: `waiting` (it needs you) until the tab stops waiting or you show it,
  `done` (it finished while you looked elsewhere) until you show it, `bell` (its program rang
  the bell) until you show it -- also when it happened with no UI attached (the host keeps
  such news in the tab's `unseen` until a UI shows the tab);
- a toast (Textual's notify);
- OSC 9, OSC 777 and BEL, written through the Textual driver's writer, so they reach the
  terminal between two frames and never inside one.

With `background_only` (the default) the tab in front gets none of these: you are looking at it.
A program's bell is the exception, as in tmux: the terminal rings for it from any tab (readline's
beep at a failed completion, a job's `printf '\a'` when it ends); a tab not in front gets the badge.
"""

from __future__ import annotations

import re
import time
from typing import Any

from textual.notifications import SeverityLevel

DEFAULTS = {"badge": True, "toast": True, "osc9": True, "osc777": True, "bell": True, "background_only": True,
            "waiting": True}

# What the tab bar shows for each badge: text and style (distinct at a glance, even without colour).
BADGES = {"waiting": ("! needs you ", "bold reverse yellow"), "done": ("✓ done ", "bold reverse green"),
          "bell": ("* bell ", "bold reverse magenta")}

TOAST_FOR = 8  # seconds a toast stays up
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")  # nothing in a notification may end the sequence
_MAX_TEXT = 200


def clean(text: str, limit: int = _MAX_TEXT) -> str:
    text = _CONTROLS.sub(" ", text).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def summary(excerpt: str) -> str:
    """One line of a waiting tab's screen excerpt: the question it asks when there is one."""
    lines = [line.strip(" │╭╮╰╯─") for line in excerpt.splitlines()]
    lines = [line for line in lines if line]
    question = next((line for line in lines if line.endswith("?")), None)
    return clean(question or (lines[0] if lines else ""), 100)


class Notifier:
    """The notification state of one UI: its settings, each tab's badge, what it last wrote."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.settings: dict[str, Any] = dict(DEFAULTS)
        self.badges: dict[int, str] = {}  # tab id -> "waiting" | "done"
        self.written: list[str] = []  # the sequences sent to the outer terminal (the last few)
        self._unseen: dict[int, str | None] = {}  # the tabs of the last tab list -> their `unseen`
        self._toasted: dict[int, float] = {}  # tab -> when its program's last notification toasted

    def start(self, hello: dict[str, Any]) -> None:
        self.settings.update(hello.get("notify") or {})

    # -- what the host says ----------------------------------------------------------------

    def tabs(self, rows: list[dict[str, Any]]) -> None:
        """The tab list: a tab already waiting when this UI attached gets its badge, and so does
        one the host marks `unseen` (done or rang while no UI showed it); a closed tab, or one
        no longer waiting, loses its `waiting` badge (a badge never outlives the prompt it was
        for), and one whose `unseen` another UI cleared loses its done or bell badge."""
        ids = set()
        for row in rows:
            ids.add(row["id"])
            state = (row.get("agent") or {}).get("state")
            new = row["id"] not in self._unseen  # later, notices say when a tab starts waiting
            behind = row["id"] != self.app.active_id
            if new and state == "waiting" and self.settings["waiting"] and behind:
                self._badge(row["id"], "waiting")
            elif state != "waiting" and self.badges.get(row["id"]) == "waiting":
                self.badges.pop(row["id"])
            # News the host kept while no UI showed the tab: a badge here too. Once a UI shows
            # the tab the host clears it, and so does every UI (the user has seen it).
            unseen, before = row.get("unseen"), self._unseen.get(row["id"])
            if new and unseen in ("done", "bell") and behind:
                self._badge(row["id"], unseen)
            elif before and not unseen and self.badges.get(row["id"]) in ("done", "bell"):
                self.badges.pop(row["id"])
            self._unseen[row["id"]] = unseen
        for tab in [tab for tab in self.badges if tab not in ids]:
            self.badges.pop(tab)
        self._unseen = {tab: mark for tab, mark in self._unseen.items() if tab in ids}
        self._redraw()

    def event(self, event: dict[str, Any]) -> None:
        if event["kind"] == "agent_state":
            if event["state"] != "waiting" and self.badges.get(event["tab"]) == "waiting":
                self.badges.pop(event["tab"])  # answered (here or elsewhere): nothing waits any more
                self._redraw()
        elif event["kind"] == "agent_notice":
            self.notice(event["tab"], event["name"], event["reason"], event.get("text") or "")

    def notice(self, tab: int, name: str, reason: str, text: str) -> None:
        if reason == "bell":
            self._bell(tab)
            return
        if self.settings["background_only"] and tab == self.app.active_id:
            return
        if reason in ("waiting", "done"):
            self._badge(tab, reason)
            self._redraw()
        severity: SeverityLevel = "information"
        if reason == "waiting":
            title, body, severity = f"{name} needs you", summary(text), "warning"
        elif reason == "done":
            title, body = f"{name} is done", "finished working"
        else:
            title, body = name, clean(text)
        now = time.monotonic()
        # A program's own notifications toast one at a time per tab (six at once stacked six
        # toasts over the tab's text for their whole 8 s); your terminal still gets each.
        own = reason not in ("waiting", "done")
        if self.settings["toast"] and not (own and now - self._toasted.get(tab, -TOAST_FOR) < TOAST_FOR):
            self.app.notify(body or title, title=title, severity=severity, timeout=TOAST_FOR, markup=False)
            if own:
                self._toasted[tab] = now
        self._outer(title, body)

    def shown(self, tab: int) -> None:
        """The user shows `tab`: they have seen what it had to say."""
        if self.badges.pop(tab, None) is not None:
            self._redraw()

    # -- how -------------------------------------------------------------------------------

    def _bell(self, tab: int) -> None:
        if tab != self.app.active_id and self.badges.get(tab) is None:
            self._badge(tab, "bell")
            self._redraw()
        if self.settings["bell"]:
            self._write("\x07")

    def _badge(self, tab: int, badge: str) -> None:
        # (A finished turn never hides a question, and a bell, which says least, hides nothing.)
        held = self.badges.get(tab)
        if self.settings["badge"] and not (badge == "done" and held == "waiting" or badge == "bell" and held):
            self.badges[tab] = badge

    def _redraw(self) -> None:
        bar = getattr(self.app, "tab_bar", None)
        if bar is not None:
            bar.badges = self.badges
            bar.set_tabs(bar.tabs, bar.active_id)

    def _outer(self, title: str, body: str) -> None:
        """OSC 9 / OSC 777 / BEL to the terminal the TUI runs in, as the settings say."""
        title = clean(f"tikitaka: {title}")
        text = f"{title}: {clean(body)}" if body else title
        sequences = []
        if self.settings["osc9"]:
            sequences.append(f"\x1b]9;{text}\x07")
        if self.settings["osc777"]:
            sequences.append(f"\x1b]777;notify;{title.replace(';', ',')};{clean(body) or title}\x07")
        if self.settings["bell"]:
            sequences.append("\x07")
        if sequences:
            self._write("".join(sequences))

    def _write(self, data: str) -> None:
        # Through the driver's writer thread: in order with the frames, never inside one.
        driver = getattr(self.app, "_driver", None)
        try:
            if driver is not None:
                driver.write(data)
                driver.flush()
        except (AssertionError, OSError, ValueError):
            return  # the app is leaving application mode: nobody would see it now
        self.written = (self.written + [data])[-20:]
