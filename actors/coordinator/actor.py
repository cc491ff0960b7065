"""The coordinator actor: the agent loop's mailbox and worker.

The actor's mailbox only takes requests (submit, cancel, reset, status, peer messages); runs
execute one at a time on a worker thread, so a model that is generating never makes the
coordinator deaf. The messages array persists across runs until `reset` and only ever grows
(system, user, then assistant/result pairs), so the backend's prompt cache is reused.

The session (messages, send filter, reset hooks) lives in a `CoordinatorLink` that outlives
the actor: when the supervisor restarts a failed coordinator, the conversation and the peer
wiring carry on. Every run ends with a final event, even when something inside it (a model
error, a transcript that cannot be written, a bug) fails.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable


from ...protocol import paths
from ...protocol.catalogue import action_schema, describe_tools, gbnf, native_tools
from ...protocol.guards import Guards, RunAborted
from ...protocol.toolcall import ToolCallError, parse_action
from ..supervisor import SupervisedActor
from .backends.ollama import Cancelled, LlmError
from .events import (Correction, Generating, RunDone, RunError, RunEvent, RunStarted, Thinking,
                             ToolEnd, ToolStart)
from .consent import Consent
from .inbox import PeerInbox
from .limits import ASK
from .tools import SendFilter, ToolExecutor
from .transcript import Transcript


def system_prompt() -> str:
    template = resources.files("tikitaka.assets").joinpath("system_prompt.md").read_text(encoding="utf-8")
    return template.replace("{tools}", describe_tools())


@dataclass
class RunRequest:
    run_id: str
    prompt: str
    source: str
    allow_shell: bool
    session: int = 0


@dataclass
class CoordinatorLink:
    """What outlives one coordinator actor: the conversation and how it is wired to peers."""

    messages: list[dict[str, Any]] = field(default_factory=lambda: [{"role": "system", "content": system_prompt()}])
    session: int = 0  # bumped by reset: a cancelled run must not append to the new session
    send_filter: SendFilter = lambda tab, role, text: text
    reset_hooks: list[Callable[[], None]] = field(default_factory=list)
    backend: Any = None  # built once; a loaded model survives a restart of the actor


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
        self._queued = 0
        self._dropped: set[str] = set()  # queued runs cancelled before they started
        self._current: RunRequest | None = None
        self._turns = 0
        self._cancel = threading.Event()
        self._inbox = PeerInbox()
        self._consent = Consent(self._bus, self._settings.allow_shell)
        self._executor = ToolExecutor(host, self._consent, self._inbox, lambda: self._link.send_filter)
        self._transcript = Transcript(paths.transcripts_dir())

    # The conversation lives in the link; these keep the loop's code readable.
    @property
    def _messages(self) -> list[dict[str, Any]]:
        return self._link.messages

    @property
    def _session(self) -> int:
        return self._link.session

    @property
    def _backend(self) -> Any:
        return self._link.backend

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
            self._queued += 1
        self._requests.put(request)
        return request.run_id

    def cancel(self, run_id: str | None = None) -> bool:
        """Cancel the current run at once (queued runs still start after it). With `run_id`,
        only that run: the current one, or a queued one, which then never starts."""
        with self._lock:
            running = self._current is not None
            if run_id is not None and not (running and self._current.run_id == run_id):
                self._dropped.add(run_id)
                return False
        if running:
            self._cancel.set()
            self._consent.wake_all()
            self._inbox.wake()
        return running

    def reset(self) -> None:
        """A new AI session: the current run is cancelled, the conversation is forgotten, and
        every reset hook runs (the bot forgets its handshakes)."""
        self.cancel()
        with self._lock:
            self._link.messages = self._messages[:1]
            self._link.session += 1
        self._inbox.drain()  # they belonged to the old conversation (the host logged them)
        for hook in list(self._link.reset_hooks):
            try:
                hook()
            except Exception as exc:  # noqa: BLE001 - one broken hook must not stop a reset
                self._host.event_log.append("reset_hook_failed", sender="coordinator", detail=repr(exc))

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"state": "running" if self._current else "idle", "queued": self._queued,
                    "turns": self._turns, "run_id": self._current.run_id if self._current else None,
                    "messages": len(self._messages), **self._backend_label()}

    def _backend_label(self) -> dict[str, str]:
        # "auto" is decided by a probe after start: read the factory's choice each time
        name = getattr(self._backend_factory, "backend_name", None) or self._backend_name
        model = getattr(self._backend, "model", None)
        if model is None and name == "embedded":
            path = self._settings.gguf_path
            model = Path(path).name if path else "gemma-3-270m-q4_k_m.gguf (a toy demo model)"
        return {"backend": name, "model": model or self._settings.model}

    def is_running(self) -> bool:
        with self._lock:
            return self._current is not None

    def peer_message(self, sender: str, text: str, verified: bool) -> None:
        """A peer's bot-chat message for the current run: wakes a pending `wait`, else rides
        on the next tool result. One that arrives too late for the run (or between runs) is
        carried into the next run's request, so nothing is dropped."""
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
            return [dict(m) for m in self._messages]

    # -- the worker ------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            request = self._requests.get()
            if request is None:
                return
            with self._lock:
                self._queued -= 1
                dropped = request.run_id in self._dropped
                self._dropped.discard(request.run_id)
            if dropped:
                self._publish(RunError(request.run_id, "cancelled"))
                continue
            with self._lock:
                request.session = self._session
                self._cancel.clear()  # before `_current` is set, so no cancel() is lost
                self._current, self._turns = request, 0
            try:
                self._run(request)
            except Exception as exc:  # noqa: BLE001 - the run ends with an error; the worker lives
                self._host.supervisor.report("coordinator.worker", exc)
                self._publish(RunError(request.run_id, f"internal error: {exc!r}"))
            finally:
                with self._lock:
                    self._current = None

    def _publish(self, event: Any) -> None:
        self._bus.publish(event)

    def _append(self, message: dict[str, Any]) -> None:
        with self._lock:
            if self._current is not None and self._current.session == self._session:
                self._messages.append(message)

    def _run(self, request: RunRequest) -> None:
        run_id = request.run_id
        label = self._backend_label()
        record = self._transcript.start(request, label["backend"], label["model"])
        self._publish(RunStarted(run_id, request.prompt, request.source))
        self._append({"role": "user", "content": request.prompt + _late_messages(self._inbox.drain())})
        guards = Guards(max_turns=self._settings.max_turns)
        try:
            answer = self._loop(request, guards, record)
        except Cancelled:
            event: RunEvent = RunError(run_id, "cancelled")
        except (LlmError, RunAborted) as exc:
            event = RunError(run_id, str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug must end the run, not the coordinator
            self._host.supervisor.report("coordinator.worker", exc)
            event = RunError(run_id, f"internal error: {exc!r}")
        else:
            event = RunDone(run_id, answer)
        self._finish(record, event)
        if self._inbox.pending():
            self._host.event_log.append("peer_messages_kept", sender="coordinator", run_id=run_id,
                                        detail="peer messages arrived after the run's last tool; "
                                               "they go with the next request")

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
            self._current = None
        self._publish(event)

    def _model(self) -> Any:
        if self._link.backend is None:
            self._link.backend = self._backend_factory()
        return self._link.backend

    def _loop(self, request: RunRequest, guards: Guards, record: dict[str, Any]) -> str:
        run_id = request.run_id
        problem = getattr(self._backend_factory, "problem", None)
        reason = problem() if problem is not None else None
        if reason:
            raise LlmError(reason)
        while True:
            guards.start_turn()
            with self._lock:
                self._turns = guards.turns
            self._publish(Thinking(run_id, guards.turns))
            tabs = self._host.workspace.names().get(timeout=ASK)
            started = time.monotonic()
            model = self._model()
            record["model"] = getattr(model, "model", record["model"])
            # llama.cpp gets our own grammar; Ollama gets the JSON schema (never `tools=` too)
            options = {"grammar": gbnf(tabs)} if getattr(model, "name", "") == "embedded" else None
            output = model.chat(
                self.messages(), schema=action_schema(tabs), cancel=self._cancel,
                on_progress=lambda tokens: self._publish(Generating(run_id, tokens)), options=options,
                tools=native_tools(tabs),
            )
            turn = {"output": output.text, "tokens": output.tokens, "prompt_eval": output.prompt_tokens,
                    "model_seconds": round(time.monotonic() - started, 3)}
            record["turns"].append(turn)
            self._append({"role": "assistant", "content": output.text})
            try:
                action = parse_action(output.text, allow_repair=guards.may_repair())
            except ToolCallError as exc:
                guards.format_error()
                turn["correction"] = str(exc)
                self._publish(Correction(run_id, str(exc)))
                self._append({"role": "user", "content": f"Correction: {exc}"})
                continue
            turn["action"] = action.to_json()
            if action.tool == "done":
                guards.check(action)
                return action.args["message"]
            blocked = guards.check(action)
            if self._cancel.is_set():
                raise Cancelled()
            self._publish(ToolStart(run_id, action.tool, action.args))
            began = time.monotonic()
            if blocked:
                result: dict[str, Any] = {"ok": False, "error": blocked}
            else:
                result = self._executor.run(action, run_id=run_id, allow_shell=request.allow_shell,
                                            cancel=self._cancel)
            duration = round(time.monotonic() - began, 3)
            turn["result"], turn["duration"] = result, duration
            self._publish(ToolEnd(run_id, action.tool, action.args, result, duration))
            if self._cancel.is_set():
                raise Cancelled()
            self._append({"role": "user", "content": f"Result of {action.tool}: {json.dumps(result, ensure_ascii=False)}"})


def _late_messages(messages: list[dict[str, Any]]) -> str:
    """Peer messages that reached no tool of the previous run, appended to the next request."""
    if not messages:
        return ""
    return "\n\nPeer messages that arrived after your last run: " + json.dumps(messages, ensure_ascii=False)
