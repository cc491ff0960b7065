"""The conversation and its budget: the messages array must never overflow the window.

The conversation grows append-only (system prompt, then per run: the request, the model's
actions and their results, the answer), so the backend's prompt cache is reused turn after
turn. Tokens are counted exactly when the backend can (llama.cpp's tokenizer), else
estimated at 3 characters per token and calibrated by what the backend reports.

Before a turn whose prompt plus reply would not fit, `compact` shortens it, oldest first, and
says so in what it leaves: tool results (and long actions) outside the recent turns become
one-line summaries; then whole earlier runs fold into one line each at the end of the system
prompt; then the current request is cut. The system prompt, the current request and the
recent turns stay. Only a window too small for the system prompt and one reply is an error.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any, Callable

ESTIMATE_CHARS = 3.0  # ASCII characters per token when we cannot count (conservative for English)
PER_MESSAGE = 8  # tokens a chat template adds around each message
KEEP_RECENT = (6, 4, 2, 0)  # whole entries kept at the end, tried in this order


class ContextTooSmall(Exception):
    """Even the system prompt, the request's head and one reply do not fit."""


class TokenCounter:
    def __init__(self, exact: Callable[[str], int | None] | None = None) -> None:
        self.exact = exact
        self.scale = 1.0  # estimate x scale = tokens, learnt from what backends report

    def raw(self, text: str) -> tuple[int, bool]:
        """(count, exact?) before scaling."""
        if self.exact is not None:
            count = self.exact(text)
            if count is not None:
                return count, True
        ascii_chars = len(text.encode("ascii", "ignore"))  # other scripts: about a token each
        return math.ceil(ascii_chars / ESTIMATE_CHARS) + len(text) - ascii_chars, False

    def count(self, text: str) -> int:
        count, exact = self.raw(text)
        return count if exact else math.ceil(count * self.scale)

    def calibrate(self, estimated: int, reported: int | None, total: bool) -> None:
        """The backend saw `reported` prompt tokens where we counted `estimated`. A total is
        the truth; a count of evaluated tokens (a cache skips some) is only a floor."""
        if not reported or estimated <= 0:
            return
        ratio = reported / estimated
        if total or ratio > 1.0:
            self.scale = min(4.0, max(0.5, self.scale * ratio))


@dataclass
class Entry:
    role: str
    content: str
    kind: str  # system | request | action | result | answer
    summary: str = ""  # one line that can stand in for the content
    _raw: tuple[int, bool] | None = None

    def tokens(self, counter: TokenCounter) -> int:
        if self._raw is None:
            self._raw = counter.raw(self.content)
        count, exact = self._raw
        return PER_MESSAGE + (count if exact else math.ceil(count * counter.scale))

    def replace(self, content: str) -> None:
        self.content, self._raw = content, None


class Conversation:
    def __init__(self, system: str) -> None:
        self.system = system
        self.entries: list[Entry] = [Entry("system", system, "system")]
        self.earlier: list[str] = []  # one line per run folded away
        self._lock = threading.RLock()  # the worker compacts while the actor may reset

    def add(self, role: str, content: str, kind: str, summary: str = "") -> None:
        with self._lock:
            self.entries.append(Entry(role, content, kind, summary))

    def reset(self) -> None:
        with self._lock:
            self.entries, self.earlier = [Entry("system", self.system, "system")], []

    def take_back(self, request: Entry) -> list[Entry]:
        """Remove `request` and everything after it (a run that did not finish)."""
        with self._lock:
            index = next((i for i, e in enumerate(self.entries) if e is request), len(self.entries))
            taken, self.entries = self.entries[index:], self.entries[:index]
            return taken

    def messages(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{"role": e.role, "content": e.content} for e in self.entries]

    def tokens(self, counter: TokenCounter) -> int:
        with self._lock:
            return sum(e.tokens(counter) for e in self.entries)

    def _current(self) -> int:
        """Index of the current (last) request."""
        return max((i for i, e in enumerate(self.entries) if e.kind == "request"), default=len(self.entries))

    def compact(self, counter: TokenCounter, limit: int, target: int | None = None) -> tuple[int, int] | None:
        """When the prompt is over `limit` tokens, shorten it to at most `target` (default
        `limit`; lower leaves room for the next turns, so the prompt cache is not broken again
        at once); (before, after), or None when it fit. Raises ContextTooSmall when even the
        minimum does not fit `limit`."""
        with self._lock:
            if self.tokens(counter) <= limit:
                return None
            try:
                return self._compact(counter, target if target is not None else limit)
            except ContextTooSmall:
                if target is None or target >= limit:
                    raise
                return self._compact(counter, limit)

    def _compact(self, counter: TokenCounter, limit: int) -> tuple[int, int] | None:
        before = self.tokens(counter)
        if before <= limit:
            return None
        fits = lambda: self.tokens(counter) <= limit  # noqa: E731
        # the current task's recent turns matter most: old results go first, then old runs,
        # then the rest of this run's results
        if self._shorten_results(KEEP_RECENT[0], fits):
            return before, self.tokens(counter)
        while self._current() > 1:
            self._fold_oldest_run()
            if fits():
                return before, self.tokens(counter)
        for keep in KEEP_RECENT[1:]:
            if self._shorten_results(keep, fits):
                return before, self.tokens(counter)
        while self.earlier:
            self.earlier.pop(0)
            self._render_system()
            if fits():
                return before, self.tokens(counter)
        self._cut_request(counter, limit)
        if not fits():
            raise ContextTooSmall(f"the system prompt alone takes {self.entries[0].tokens(counter)} tokens")
        return before, self.tokens(counter)

    def _shorten_results(self, keep: int, fits: Callable[[], bool]) -> bool:
        """Results and long actions, except the last `keep` entries, become their summary."""
        for entry in self.entries[1:len(self.entries) - keep]:
            if entry.kind in ("result", "action") and entry.summary and entry.content != self._short(entry):
                entry.replace(self._short(entry))
                if fits():
                    return True
        return False

    @staticmethod
    def _short(entry: Entry) -> str:
        if entry.kind == "result":
            return f"{entry.summary} [result shortened to fit the context; call the tool again if you need it]"
        return entry.summary

    def _fold_oldest_run(self) -> None:
        """The oldest run before the current request becomes one line in the system prompt."""
        start = 1
        end = next((i for i in range(start + 1, len(self.entries)) if self.entries[i].kind == "request"),
                   len(self.entries))
        run = self.entries[start:end]
        del self.entries[start:end]
        request = next((e.content for e in run if e.kind == "request"), "")
        request = request.split("\n\n(Tabs now:")[0]
        answer = next((e.summary for e in reversed(run) if e.kind == "answer"), "(no answer)")
        self.earlier.append(f"- asked {_clip(request, 100)!r} -> {_clip(answer, 160)}")
        self._render_system()

    def _render_system(self) -> None:
        text = self.system
        if self.earlier:
            text += ("\n\nEarlier in this session (older runs shortened to one line each to fit the "
                     "context window):\n" + "\n".join(self.earlier))
        self.entries[0].replace(text)

    def _cut_request(self, counter: TokenCounter, limit: int) -> None:
        index = self._current()
        if index >= len(self.entries):
            return
        entry = self.entries[index]
        room = limit - (self.tokens(counter) - entry.tokens(counter)) - PER_MESSAGE - 40
        text = entry.content
        keep = max(0, min(len(text), int(room * ESTIMATE_CHARS / max(counter.scale, 1.0))))
        while keep > 0 and counter.count(text[:keep]) > room:
            keep = int(keep * 0.8)
        entry.replace(text[:keep] + f"\n[... the request was cut here to fit the context window: "
                                    f"{len(text) - keep} characters left out]")


def _clip(text: str, size: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"


clip = _clip
