"""What the host says, in the app (mixed into `TikiApp`): screen frames (merged while the app
is busy: frame_inbox), history pages, the tab list, chat, coordinator progress, consent
questions, peers' states, notes; and the session's end. protocol/README.md lists the events.
"""

from __future__ import annotations

from typing import Any

from .dialogs import ConsentScreen
from .frame_inbox import FrameInbox
from .messages import Detached, HostEvent, PanelNote
from .panel_backlog import chat_line, note_line, peer_note_line, show_backlog


class HostEvents:
    frames: FrameInbox
    client: Any
    view: Any
    panel: Any
    tab_bar: Any
    notifier: Any
    detached_reason: str | None
    _consents: dict[str, ConsentScreen]
    # the app's own (Textual's, and TikiApp's for tabs and the clipboard)
    post_message: Any
    exit: Any
    push_screen: Any
    program_copied: Any
    _set_tabs: Any
    _note_exit: Any
    tabs: list[Any]
    active_id: int | None

    def _from_host(self, event: dict[str, Any]) -> None:
        """The session's reader thread: screen frames wait merged (frame_inbox), the rest queue."""
        if event.get("kind") != "screen" or self.frames.put(event):
            self.post_message(HostEvent(event))

    def on_host_event(self, message: HostEvent) -> None:
        event = message.event
        kind = event.get("kind")
        if kind == "screen":
            frame = self.frames.take(event["tab"])
            if frame is not None:
                self.view.apply_frame(frame)
        elif kind == "history":
            self.view.apply_history(event)
        elif kind == "clipboard":
            self.program_copied(event)
        elif kind == "tabs":
            self._set_tabs([self._newer_agent(row) for row in event["tabs"]])
        elif kind == "tab_exited":
            self._note_exit(event["tab"], event["name"], event["exit_code"])
        elif kind == "chat":
            self.panel.write(*chat_line(event))
        elif kind == "run":
            self.panel.show_run_event(event["run"])
        elif kind == "consent":
            self._ask_consent(event)
        elif kind == "consent_closed":
            screen = self._consents.pop(event["request_id"], None)
            if screen is not None and screen.is_attached:
                screen.dismiss(None)
        elif kind == "peer":
            self.tab_bar.set_handshake(event["name"], event["state"])
            if event.get("note"):
                self.panel.write(*peer_note_line(event))
        elif kind == "note":
            self.panel.write(*note_line(event))
        elif kind == "backlog":
            show_backlog(self.panel, event["events"])
        elif kind in ("agent_state", "agent_notice"):
            if kind == "agent_state":
                self._agent_changed(event)
            self.notifier.event(event)
        elif kind == "backend":
            self.panel.set_ai_available(event.get("problem"))
        elif kind == "error" and event.get("ref") not in self.client.quiet_refs:
            self.view.copy.refused(event.get("ref"))  # (a history page that will not come)
            self.on_panel_note(PanelNote(f"host: {event['message']}", "red"))  # (a toast too while the panel is hidden)

    def _agent_changed(self, event: dict[str, Any]) -> None:
        """A tab's new agent state, for the tab bar (the tab list comes only when a tab changes
        otherwise: opened, closed, renamed, exited, quiet or printing)."""
        for tab in self.tabs:
            if tab.id == event["tab"] and ((tab.agent or {}).get("since") or 0) <= event["since"]:
                tab.agent = {**(tab.agent or {}), "kind": event["agent"], "state": event["state"],
                             "since": event["since"], "reason": event.get("rule", "")}
                self.tab_bar.set_tabs(self.tabs, self.active_id)

    def _newer_agent(self, row: dict[str, Any]) -> dict[str, Any]:
        """`row` of a tab list, with the agent state this UI already has when that is the newer:
        a list made before a state change can arrive after the change's event."""
        known = next((tab.agent for tab in self.tabs if tab.id == row["id"] and tab.agent), None)
        if known and (known.get("since") or 0) > ((row.get("agent") or {}).get("since") or 0):
            return {**row, "agent": known}
        return row

    def on_detached(self, message: Detached) -> None:
        self.detached_reason = message.reason
        self.exit(return_code=0 if "stopping" in message.reason else 1)

    def on_panel_note(self, message: PanelNote) -> None:
        self.panel.write(message.text, message.style)
        if self.panel.hidden and message.style == "red":  # (a refused command must not go unseen)
            self.notify(message.text, severity="error", timeout=8, markup=False)  # type: ignore[attr-defined]

    def _ask_consent(self, question: dict[str, Any]) -> None:
        request_id = question["request_id"]

        def answered(decision: str | None) -> None:
            if self._consents.pop(request_id, None) is not None:
                self.client.consent(request_id, decision or "deny")

        screen = ConsentScreen(question["tab"], question["tool"], question.get("args") or {})
        self._consents[request_id] = screen
        self.push_screen(screen, answered)
