"""Loop guards for one coordinator run: a small model must not spin forever.

- at most `max_turns` model turns;
- the same tool with the same canonical arguments a 4th time is blocked, with an explanation
  fed back as its result; 3 blocks in a row end the run;
- output that does not parse (or was cut off) gets at most 2 correction turns in a row;
- a bare `{"message": ...}` is repaired into `done` once per run;
- a `done` whose message is in tikitaka's own words to the model (a bounce, a block, a
  correction, a tool's result: small models copy them as their answer) is sent back once per run;
- `exhausted()` names the calls made `REPEAT_LIMIT` times, so the next turn's schema or
  grammar can leave them out and a looping model is moved on rather than blocked.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .toolcall import Action

REPEAT_LIMIT = 3  # the 4th identical call is blocked
BLOCKS_TO_ABORT = 3
CORRECTIONS = 2
# How tikitaka's own messages to the model begin (actors/coordinator/loop.py, this module).
OUR_WORDS = re.compile(r"\s*(?:not done:|blocked:|Correction:|Result of [a-z_]+:)")


class RunAborted(Exception):
    """The run must end; the message says why, for the user."""


@dataclass
class Guards:
    max_turns: int = 12
    turns: int = 0
    repairs_used: int = 0
    _calls: Counter = field(default_factory=Counter)
    _targets: dict = field(default_factory=dict)  # canonical call -> (tool, tab or None)
    _blocks_in_a_row: int = 0
    _corrections_in_a_row: int = 0
    _echo_sent_back: bool = False

    def start_turn(self) -> None:
        if self.turns >= self.max_turns:
            raise RunAborted(f"stopped after {self.max_turns} model turns without `done`")
        self.turns += 1

    def copied_our_words(self, message: str) -> bool:
        """True, once per run, for an answer that starts as tikitaka's messages to the model do."""
        if self._echo_sent_back or OUR_WORDS.match(message) is None:
            return False
        self._echo_sent_back = True
        return True

    def may_repair(self) -> bool:
        return self.repairs_used < 1

    def format_error(self, what: str = "did not parse") -> None:
        """Count an unusable turn; raises when the corrections are used up. `what` says how
        the last reply failed ("did not parse", "was cut off at the reply budget")."""
        self._corrections_in_a_row += 1
        if self._corrections_in_a_row > CORRECTIONS:
            raise RunAborted(f"stopped: the model's reply {what} {self._corrections_in_a_row} times in a row")

    def exhausted(self) -> frozenset[tuple[str, str | None]]:
        """(tool, tab) of every call that the next identical call would be blocked for."""
        return frozenset(self._targets[key] for key, count in self._calls.items() if count >= REPEAT_LIMIT)

    def check(self, action: Action) -> str | None:
        """None if the action may run, else the explanation to feed back instead of running it."""
        self._corrections_in_a_row = 0
        if action.repaired:
            self.repairs_used += 1
        key = action.canonical()
        self._calls[key] += 1
        if action.tool != "done":
            self._targets[key] = (action.tool, action.args.get("tab"))
        if self._calls[key] <= REPEAT_LIMIT or action.tool == "done":
            self._blocks_in_a_row = 0
            return None
        self._blocks_in_a_row += 1
        if self._blocks_in_a_row >= BLOCKS_TO_ABORT:
            raise RunAborted(f"stopped: {action.tool} with the same arguments was blocked {BLOCKS_TO_ABORT} times in a row")
        return (f"blocked: you already called {action.tool} with these exact arguments "
                f"{REPEAT_LIMIT} times. Do something different, or call done with what you know.")
