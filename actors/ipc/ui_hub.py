"""The host's side of every attached UI: who is attached, which tab each one watches, whose
size the tabs follow, and everything the UIs must hear.

- Screen feeds (`tab_feed.TabFeed`): a tab watched by one UI or many is watched once; each of its
  updates is encoded once (`ui_frames.ScreenFrame`) and handed to every watching session's
  outbox. When nobody watches a tab any more, it builds no rows.
- Sizes follow the most recently active UI (tmux's `window-size latest`): a UI that types,
  pastes, resizes or switches tabs becomes the latest, and the tab it shows takes its size.
  Other UIs draw that tab clipped or padded. When a UI stops showing a tab (it detaches or
  switches), the tab takes the size of the latest of the UIs still showing it. The default
  colours a tab's program is told follow the latest UI too (`ui_colors`).
- Events: the host's bus (tabs, bot-chat, coordinator progress, consent requests, peers,
  failures) goes out to every session, encoded once; what the agent panel logs is also kept
  for UIs that attach later (`ui_backlog`). One hub thread does it, so no publisher ever waits
  for a UI; it also polls the tab list once a second while UIs are attached (output activity:
  the tab bar's `busy` for programs no agent rule describes) and says so only when something
  changed. Agent states reach the UIs as their own events, as they change.
- Consent (`ui_consents`): while any UI is attached the coordinator asks before typing into a
  shell tab and any UI may answer; when the last one leaves, the questions still open are
  denied (and new ones are, unless allow_shell).
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
import time
from typing import Any

import pykka

from ...protocol.limits import ASK
from ..errors import TikiError
from ..events import ScreenChanged, TabsChanged
from .tab_feed import TabFeed
from .ui_backlog import Backlog
from .ui_colors import TabColors
from .ui_consents import Consents
from .ui_frames import event_body, wire_event

POLL_EVERY = 1.0  # seconds between tab-list polls while UIs are attached
_STOP = object()


def _notify_settings(host: Any) -> dict[str, Any]:
    """The host's [notify] settings, which the UI honours (badges, toasts, its terminal's
    notifications): one config file decides for the host and every UI."""
    settings = getattr(host, "settings", None)
    return settings.notify.model_dump() if settings is not None else {}


class UiHub:
    def __init__(self, host: Any) -> None:
        self._host = host
        self._lock = threading.RLock()
        self.sessions: list[Any] = []
        self._feeds: dict[int, TabFeed] = {}
        self._tabs: list[dict[str, Any]] = []
        self._terminals: dict[int, Any] = {}
        self._latest: Any = None
        self._applied: dict[int, tuple[int, int]] = {}  # the size each tab was last given
        self._activity = itertools.count(1)  # orders the sessions' last uses (`session.active_at`)
        self._backlog = Backlog()  # what the panel said, for UIs that attach later
        self.consents = Consents(host, self.broadcast, self._lock)
        self._events: queue.Queue[Any] = queue.Queue()
        self._unsubscribe = host.bus.subscribe(self._on_bus)
        self._polled = 0.0
        self.colors = TabColors(self._all_terminals)

    def start(self) -> None:
        self._host.supervisor.thread("ui.hub", self._run)

    def _on_bus(self, event: object) -> None:  # on the publisher's thread: queue and go
        if not isinstance(event, ScreenChanged):  # (with no UI attached too: the backlog keeps it)
            self._events.put(event)

    # -- sessions ----------------------------------------------------------------------------

    def attach(self, session: Any) -> None:
        """Register a session and queue its hello event, always its first: the session joins
        the broadcasts only after the hello is queued (a tab-list poll in between came first once)."""
        tabs = self.refresh_tabs()
        active = self._host.workspace.active().get(timeout=ASK)
        bot = self._host.service("bot")
        peers = bot.states().get(timeout=ASK) if bot is not None else {}
        with self._lock:
            first = not self.sessions
            session.send({
                "kind": "hello", "session": session.id, "host_pid": os.getpid(), "tabs": tabs,
                "active": next((t["id"] for t in tabs if t["name"] == active), None),
                "coordinator": self._host.service("coordinator") is not None,
                "peers": peers, "consents": self.consents.questions(),
                "notify": _notify_settings(self._host), **session.config,
            })
            if (backlog := self._backlog.event_body()) is not None:
                session.outbox.event(backlog)
            self.sessions.append(session)
        if first:
            self.consents.responder(True)

    def detach(self, session: Any) -> None:
        with self._lock:
            if session in self.sessions:
                self.sessions.remove(session)
            self._unfeed(session)
            last = not self.sessions
            if self._latest is session:
                self._latest = None
        if last:
            self.consents.nobody_left()

    def stop(self, reason: str) -> None:
        for session in list(self.sessions):
            session.end(reason)
        self._unsubscribe()
        self._events.put(_STOP)

    # -- screens and sizes -------------------------------------------------------------------

    def terminal(self, tab: int) -> Any:
        """The terminal actor of tab `tab` (by id), or TikiError."""
        proxy = self._terminals.get(tab)
        if proxy is not None:
            return proxy
        name = next((t["name"] for t in self._tabs if t["id"] == tab), None)
        if name is None:
            name = next((t["name"] for t in self.refresh_tabs() if t["id"] == tab), None)
        if name is None:
            raise TikiError(f"no tab with id {tab}; tabs are: {', '.join(t['name'] for t in self._tabs) or '(none)'}")
        proxy = self._terminals[tab] = self._host.workspace.get(name).get(timeout=ASK).terminal
        return proxy

    def watch(self, session: Any, tab: int) -> None:
        terminal = self.terminal(tab)
        with self._lock:
            self._unfeed(session)
            session.tab = tab
            session.outbox.watching(tab)
            self.touch(session)  # the resize reaches the tab before the snapshot is taken
            feed = self._feeds.get(tab)
            if feed is None:
                feed = self._feeds[tab] = TabFeed(tab, terminal)
            try:
                feed.add(session)
            except BaseException:
                session.tab = None  # (not shown: the UI is told, and may ask again)
                session.outbox.watching(None)  # no snapshot is coming: the tab's frames wait for none
                if not feed.sessions:
                    del self._feeds[tab]
                raise
        name = next((t["name"] for t in self._tabs if t["id"] == tab), None)
        if name is not None:
            self._host.workspace.set_active(name)  # what a new UI (and `terminal-list`) shows first

    def _unfeed(self, session: Any) -> None:
        feed = self._feeds.get(session.tab) if session.tab is not None else None
        if feed is None:
            return
        if feed.remove(session):
            del self._feeds[feed.tab]
        else:  # others still show the tab: it takes the size of the latest of them
            self._resize(feed.tab, max(feed.sessions, key=lambda other: other.active_at).size)

    def describe(self) -> list[Any]:
        """The attached UIs, oldest first (`host.info`'s `uis`: `tiki status` lists them)."""
        names = {t["id"]: t["name"] for t in self._tabs}
        with self._lock:
            return [session.info(names.get(session.tab), session is self._latest) for session in self.sessions]

    @property
    def latest(self) -> Any:
        """The most recently active session (None when it left)."""
        return self._latest

    def touch(self, session: Any) -> None:
        """`session` was just used: it is the latest, and the tab it shows takes its size."""
        self._latest = session
        session.active_at, session.used_at = next(self._activity), time.monotonic()
        self._resize(session.tab, session.size)
        self.colors.follow(session)

    def _resize(self, tab: int | None, size: tuple[int, int] | None) -> None:
        if tab is None or size is None or self._applied.get(tab) == size:
            return
        self._applied[tab] = size
        try:
            self.terminal(tab).resize(*size)
        except (TikiError, pykka.ActorDeadError, pykka.Timeout):
            pass  # the tab went away meanwhile

    # -- events ------------------------------------------------------------------------------

    def broadcast(self, event: dict[str, Any]) -> None:
        body = event_body(event)
        with self._lock:  # (kept and sent as one: a UI attaching meanwhile gets it once, in order)
            self._backlog.keep(event, body)
            sessions = list(self.sessions)
        for session in sessions:
            session.outbox.event(body)

    def refresh_tabs(self) -> list[dict[str, Any]]:
        tabs = [tab.to_json() for tab in self._host.workspace.list_tabs().get(timeout=ASK)]
        self._set_tabs(tabs)
        return tabs

    def _set_tabs(self, tabs: list[dict[str, Any]]) -> bool:
        changed = tabs != self._tabs
        if [(t["id"], t["name"], t["running"]) for t in tabs] != [(t["id"], t["name"], t["running"]) for t in self._tabs]:
            self._terminals.clear()  # closed, renamed or restarted tabs: look them up again
            self._applied.clear()
        self._tabs = tabs
        return changed

    def _run(self) -> None:
        while True:
            try:
                event = self._events.get(timeout=POLL_EVERY)
            except queue.Empty:
                event = None
            if event is _STOP:
                return
            if event is not None:
                self._dispatch(event)
            if self.sessions and time.monotonic() - self._polled >= POLL_EVERY:
                self._polled = time.monotonic()
                self._poll()

    def _dispatch(self, event: object) -> None:
        if isinstance(event, TabsChanged):
            self._set_tabs([tab.to_json() for tab in event.tabs])
            self._rebind_feeds()
            self.colors.tell_all()  # (a tab opened or started again: a new screen)
        self.consents.on_event(event)
        wire = wire_event(event)
        if wire is not None:
            self.broadcast(wire)

    def _poll(self) -> None:
        try:
            tabs = [tab.to_json() for tab in self._host.workspace.list_tabs().get(timeout=ASK)]
        except (pykka.ActorDeadError, pykka.Timeout):
            return
        if self._set_tabs(tabs):
            self.broadcast({"kind": "tabs", "tabs": tabs})
        self.consents.responder(True)  # a restarted coordinator starts without a responder

    def _all_terminals(self) -> list[Any]:
        terminals = []
        for tab in list(self._tabs):
            try:
                terminals.append(self.terminal(tab["id"]))
            except (TikiError, pykka.ActorDeadError, pykka.Timeout):
                pass  # closed, or failed: started again later, it is told then
        return terminals

    def _rebind_feeds(self) -> None:
        """A tab whose terminal actor was replaced (restarted after a failure): watch the new one."""
        with self._lock:
            feeds = list(self._feeds.values())
        for feed in feeds:
            try:
                terminal = self.terminal(feed.tab)
            except (TikiError, pykka.ActorDeadError, pykka.Timeout):
                continue  # closed: its sessions hear of it in the tab list
            if terminal.actor_ref.actor_urn == feed.terminal.actor_ref.actor_urn:
                continue
            with self._lock:
                sessions, feed.sessions = feed.sessions, ()
                feed.terminal = terminal
                for session in sessions:
                    try:
                        feed.add(session)
                    except Exception as exc:  # noqa: BLE001 - the others still get the new screen
                        session.tab = None
                        session.send({"kind": "error", "ref": None,
                                      "message": f"tab {feed.tab} restarted but its screen could not be read ({exc!r}); "
                                                 "show it again to retry"})
                if not feed.sessions and self._feeds.get(feed.tab) is feed:
                    del self._feeds[feed.tab]
