"""The coordinator actor: the agent loop's mailbox and worker.

The mailbox takes requests (submit, cancel, reset, status, peer messages); runs execute one at
a time on a worker thread, so a generating model never makes the coordinator deaf. A run is an
`@Name ...` relay (no model: `relay`) or the agent loop (`loop`); a submitted run is announced
at once (`queued`, with its id and the run it waits behind). The session (conversation, send
filter, reset hooks, the built backend) lives in a `CoordinatorLink` that outlives a restarted
actor. Every run ends with a final event (turns, tokens, seconds) even when something inside it
fails, and leaves the conversation well-formed, so the next request works.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable

from ...protocol import paths
from ...protocol.guards import RunAborted
from ..supervisor import SupervisedActor
from .backends.stream import Cancelled, LlmError
from .consent import Consent
from .context import clip
from .events import Loading, RunDone, RunError, RunQueued, RunStarted
from .inbox import PeerInbox
from .limits import ASK
from .loop import AgentLoop, Run
from .relay import Relay, parse_relay
from .session import CoordinatorLink, RunRequest
from .tools import SendFilter, ToolExecutor
from .transcript import Transcript


class Coordinator(SupervisedActor):
    def __init__(self, host: Any, backend_factory: Callable[[], Any], link: CoordinatorLink | None = None) -> None:
        super().__init__()
        self._host = host
        self._bus = host.bus
        self._settings = host.settings.coordinator
        self._backend_factory = backend_factory
        self._link = link or CoordinatorLink()
        self._backend_name = getattr(backend_factory, "backend_name", self._settings.backend)
        self._lock = threading.Lock()
        self._requests: queue.Queue[RunRequest | None] = queue.Queue()
        self._waiting: dict[str, RunRequest] = {}  # queued, not started; a cancelled one is taken out
        self._current: RunRequest | None = None
        self._loop: AgentLoop | None = None
        self._last_turns = 0  # the last finished run's turns, for `status` while idle
        self._request_entry: Any = None  # the current run's request in the conversation
        self._cancel = threading.Event()
        self._inbox = PeerInbox()
        self._consent = Consent(self._bus, self._settings.allow_shell, self._settings.consent_timeout)
        self._executor = ToolExecutor(host, self._consent, self._inbox, lambda: self._link.send_filter)
        self._transcript = Transcript(paths.transcripts_dir(), self._settings.transcript_days,
                                      paths.host_tag(host.socket_path))

    def on_start(self) -> None:
        self._host.supervisor.thread("coordinator.worker", self._work)

    def on_stop(self) -> None:
        self._end_worker()

    def on_failure(self, exception_type: Any, exception_value: Any, tb: Any) -> None:
        self._end_worker()  # the restarted actor starts its own worker
        super().on_failure(exception_type, exception_value, tb)

    def _end_worker(self) -> None:
        self._cancel.set()
        self._consent.wake_all()
        self._inbox.wake()
        self._requests.put(None)

    # -- the mailbox -----------------------------------------------------------------------

    def submit(self, prompt: str, *, source: str = "user", allow_shell: bool = False) -> str:
        request = RunRequest(uuid.uuid4().hex[:10], prompt, source, allow_shell)
        with self._lock:
            current, ahead = self._current, len(self._waiting)
            self._waiting[request.run_id] = request
        # at once, so a queued asker is not left staring at a blank line until the run ahead ends
        self._bus.publish(RunQueued(request.run_id, prompt, source, current.run_id if current else None,
                                    clip(current.prompt, 60) if current else "", ahead))
        self._requests.put(request)
        return request.run_id

    def cancel(self, run_id: str | None = None) -> bool:
        """Cancel the current run at once (queued runs still start after it). With `run_id`, only
        that run: the current one, or a queued one, which ends at once, never started (False)."""
        with self._lock:
            running = self._current is not None
            queued = run_id is not None and not (self._current is not None and self._current.run_id == run_id)
            dropped = self._waiting.pop(run_id, None) if queued and run_id else None
        if queued:
            if dropped is not None:  # its asker (`tiki ask`, a panel) must not wait for the run ahead
                self._bus.publish(RunError(dropped.run_id, "cancelled"))
            return False
        if running:
            self._cancel.set()
            self._consent.wake_all()
            self._inbox.wake()
        return running

    def reset(self) -> None:
        """A new session: the current run is cancelled, the conversation is forgotten, and
        every reset hook runs (the bot forgets its handshakes)."""
        self.cancel()
        with self._lock:
            self._link.conversation.reset()
            self._link.session += 1
        self._inbox.drain()  # they belonged to the old conversation (the host logged them)
        for hook in list(self._link.reset_hooks):
            try:
                hook()
            except Exception as exc:  # noqa: BLE001 - one broken hook must not stop a reset
                self._host.event_log.append("reset_hook_failed", sender="coordinator", detail=repr(exc))

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"state": "running" if self._current else "idle", "queued": len(self._waiting),
                    "turns": self._loop.turns if self._loop and self._current else 0,  # idle: no current run
                    "last_turns": self._last_turns,
                    "run_id": self._current.run_id if self._current else None,
                    "messages": len(self._link.conversation.entries), **self._backend_label()}

    def _backend_label(self) -> dict[str, str]:
        # "auto" is decided by a probe after start: read the factory's choice each time
        name = getattr(self._backend_factory, "backend_name", None) or self._backend_name
        model = getattr(self._link.backend, "model", None)
        if model is None and name == "embedded":
            model = Path(self._settings.gguf_path or "gemma-3-270m-q4_k_m.gguf (a toy demo model)").name
        return {"backend": name, "model": model or self._settings.model}

    def is_running(self) -> bool:
        with self._lock:
            return self._current is not None

    def peer_message(self, sender: str, text: str, verified: bool) -> None:
        """A peer's bot-chat message for the current run: wakes a pending `wait`, else rides on the
        next tool result; one too late for the run goes with the next request: none is dropped."""
        self._inbox.put(sender, text, verified)

    def add_reset_hook(self, hook: Callable[[], None]) -> None:
        self._link.reset_hooks.append(hook)

    def set_send_filter(self, send_filter: SendFilter) -> None:
        self._link.send_filter = send_filter

    def set_consent_responder(self, present: bool) -> None:
        self._consent.set_responder(present)

    def answer_consent(self, request_id: str, decision: str) -> bool:
        return self._consent.answer(request_id, decision)

    def messages(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._link.conversation.messages()

    # -- the worker ------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            request = self._requests.get()
            if request is None:
                return
            with self._lock:
                if self._waiting.pop(request.run_id, None) is None:
                    continue  # cancelled while queued: its end was announced then
                request.session = self._link.session
                self._cancel.clear()  # before `_current` is set, so no cancel() is lost
                self._current, self._loop, self._request_entry = request, None, None
            try:
                self._run(request)
            except Exception as exc:  # noqa: BLE001 - the run ends with an error; the worker lives
                self._host.supervisor.report("coordinator.worker", exc)
                self._bus.publish(RunError(request.run_id, f"internal error: {exc!r}"))
            finally:
                with self._lock:
                    self._current = None

    def _append(self, role: str, content: str, kind: str, summary: str = "") -> None:
        with self._lock:
            if self._current is not None and self._current.session == self._link.session:
                self._link.conversation.add(role, content, kind, summary)
                if kind == "request":
                    self._request_entry = self._link.conversation.entries[-1]

    def _run(self, request: RunRequest) -> None:
        label = self._backend_label()
        record = self._transcript.start(request, label["backend"], label["model"])
        self._bus.publish(RunStarted(request.run_id, request.prompt, request.source))
        started = time.monotonic()
        answer: str | None = None
        code = ""
        try:
            relay = parse_relay(request.prompt)
            answer = self._relay(request, relay, record) if relay else self._agent(request, record)
        except Cancelled:
            reason = "cancelled"
        except (LlmError, RunAborted) as exc:
            reason, code = str(exc), getattr(exc, "code", "")  # (a relay's timeout: exit 4)
        except Exception as exc:  # noqa: BLE001 - a bug must end the run, not the coordinator
            self._host.supervisor.report("coordinator.worker", exc)
            reason = f"internal error: {exc!r}"
        turns, tokens = (self._loop.turns, self._loop.tokens) if self._loop else (0, 0)
        seconds = round(time.monotonic() - started, 2)
        if answer is not None:
            unasked = self._loop.unasked if self._loop and not relay else []
            event: Any = RunDone(request.run_id, answer, turns, tokens, seconds, unasked)
        else:
            event = RunError(request.run_id, reason, turns, tokens, seconds, code)
            self._take_back(request, reason)
        self._finish(record, event)
        if self._inbox.pending():
            self._host.event_log.append("peer_messages_kept", sender="coordinator", run_id=request.run_id,
                                        detail="peer messages arrived after the run's last tool; "
                                               "they go with the next request")

    def _take_back(self, request: RunRequest, reason: str) -> None:
        """A run that ends without an answer leaves no dangling turn (strict chat templates need
        user and assistant to alternate) and no made-up answer a small model would copy: it is
        taken out of the conversation, and the next request says in one line what happened."""
        with self._lock:
            if request.session != self._link.session or self._request_entry is None:
                return  # reset meanwhile, or it failed before it said anything: nothing to take back
            taken = self._link.conversation.take_back(self._request_entry)
            facts = [e.summary for e in taken if e.kind == "result" and e.summary]
            self._link.note = (f"(Your previous request {clip(request.prompt, 100)!r} did not finish: "
                               f"{clip(reason, 160)}." + (f" What it did: {clip('; '.join(facts), 600)}" if facts else "")
                               + ")\n\n")

    def _agent(self, request: RunRequest, record: dict[str, Any]) -> str:
        reason = getattr(self._backend_factory, "problem", lambda: None)()
        if reason:
            raise LlmError(reason)
        with self._lock:
            note, self._link.note = self._link.note, ""
        run = Run(request.run_id, request.prompt, request.source, request.allow_shell, self._settings,
                  self._link.conversation, self._append, self._backend_getter(request.run_id), self._executor,
                  self._bus.publish, self._cancel, lambda: self._host.workspace.names().get(timeout=ASK),
                  record, self._inbox.drain(), note)
        loop = AgentLoop(run)
        with self._lock:
            self._loop = loop
        return loop.run()

    def _relay(self, request: RunRequest, relay: tuple[list[str], str], record: dict[str, Any]) -> str:
        self._append("user", request.prompt, "request")
        answer = Relay(run_id=request.run_id, executor=self._executor, inbox=self._inbox, publish=self._bus.publish,
                       cancel=self._cancel, timeout=self._settings.relay_timeout, record=record).run(*relay)
        self._append("assistant", json.dumps({"tool": "done", "args": {"message": answer}}, ensure_ascii=False),
                     "answer", answer)
        return answer

    def _backend_getter(self, run_id: str) -> Callable[[], Any]:
        """The backend, built on first use; a model that must first be loaded is announced
        (once per run) so the wait does not look like a hang."""
        told = [False]

        def get() -> Any:
            if self._link.backend is None:
                info = getattr(self._backend_factory, "load_info", lambda: None)()
                if info:
                    told[0] = True
                    self._bus.publish(Loading(run_id, info[0], round(info[1] / 1e6, 1)))
                self._link.backend = self._backend_factory()
            backend = self._link.backend
            if not told[0]:
                told[0] = True
                info = backend.load_info() if hasattr(backend, "load_info") else None
                if info:
                    self._bus.publish(Loading(run_id, info[0], round(info[1] / 1e6, 1)))
            return backend

        return get

    def _finish(self, record: dict[str, Any], event: Any) -> None:
        """Record the run, then announce its end. The announcement happens whatever the
        recording does: a transcript that cannot be written must not leave `tiki ask` waiting."""
        outcome = "done" if isinstance(event, RunDone) else "error"
        detail = event.message if isinstance(event, RunDone) else event.reason
        try:
            self._transcript.finish(record, outcome, detail)
        except (OSError, ValueError, TypeError) as exc:
            self._host.supervisor.report("coordinator.transcript", exc)
        self._host.event_log.append(f"run_{outcome}", sender="coordinator",
                                    detail=f"{record['prompt'][:80]!r} -> {detail[:200]}", run_id=event.run_id)
        with self._lock:  # idle before anyone hears the run ended (`tiki status` right after)
            self._current, self._last_turns = None, getattr(event, "turns", 0)
        self._bus.publish(event)
