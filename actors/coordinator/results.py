"""Tool results as the model reads them: within a token budget, with shell prompts marked,
and as one-line summaries when the conversation is compacted.

- `Budget.lines`: the most recent lines of a screen that fit, and how many were left out
  (a 400-line read once overflowed the window and poisoned the session).
- `Budget.result`: any result that is still too big has its longest strings cut: a screen
  (the result's own `text`) keeps its end, anything else (a peer's message) its start.
- `mark_prompt`: a shell's prompt is shown as `[prompt]`, never as text to copy (small
  models typed "bash-5.2#" back into the shell).
- `summarize`: one line per tool call (tool, arguments, outcome) for compaction.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from .context import clip

PROMPT_MARK = "[prompt]"
# a prompt as the last line of a shell screen: "bash-5.2$", "user@host:~/src$", "root@x:/#",
# "(venv) me@box %", "sh-5.2#", "$", ">"
_PROMPT = re.compile(r"^(?:\(\S+\) )?\S{0,60}[$#%>]$")


@dataclass
class Budget:
    tokens: int
    count: Callable[[str], int]

    def lines(self, text: str) -> tuple[str, int]:
        """The most recent lines of `text` within the budget, and how many lines were left out."""
        if self.count(text) <= self.tokens:
            return text, 0
        lines = text.split("\n")
        # no line count can fit more characters than this: search only what could
        tail, chars = [], 0
        for line in reversed(lines):
            chars += len(line) + 1
            tail.append(line)
            if chars > self.tokens * 8:
                break
        tail.reverse()
        low, high = 0, len(tail)
        while low < high:  # the largest number of trailing lines that fits
            mid = (low + high + 1) // 2
            if self.count("\n".join(tail[-mid:])) <= self.tokens:
                low = mid
            else:
                high = mid - 1
        if low:
            return "\n".join(tail[-low:]), len(lines) - low
        last = tail[-1]  # one line longer than the whole budget: its end
        keep = self.tokens * 2
        while keep > 0 and self.count(last[-keep:]) > self.tokens:
            keep //= 2
        return "…" + last[-keep:] if keep else "", len(lines) - 1

    def result(self, result: dict[str, Any]) -> dict[str, Any]:
        """`result` with its longest strings cut until the whole fits the budget."""
        for _ in range(24):
            if self.count(json.dumps(result, ensure_ascii=False)) <= self.tokens:
                return result
            path, text = _longest(result)
            if path is None or len(text) < 40:
                return result
            half = len(text) // 2
            note = f"[{len(text) - half} characters left out to fit the context]"
            # a screen's newest lines are at its end (read_terminal's top-level `text`); a message's
            # point is at its start (a peer message's `text` too, nested in `peer_messages`)
            _set(result, path, f"… {note} {text[-half:]}" if path == ("text",) else f"{text[:half]}… {note}")
        return result


def _longest(value: Any, path: tuple = ()) -> tuple[tuple | None, str]:
    best: tuple[tuple | None, str] = (None, "")
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = (path + (key,), item) if isinstance(item, str) else _longest(item, path + (key,))
        if found[0] is not None and len(found[1]) > len(best[1]):
            best = found
    return best


def _set(value: Any, path: tuple, text: str) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = text


def mark_prompt(text: str, cursor_col: int | None = None) -> tuple[str, str | None]:
    """(text with the shell's prompt shown as [prompt], the prompt) when the screen ends at
    one: the last line, with the cursor right after it, that looks like a prompt ($ # % >)
    or starts an earlier line too (a prompt comes back before every command)."""
    lines = text.split("\n")
    last = lines[-1].rstrip() if lines else ""
    if not last or len(last) > 80 or (cursor_col is not None and cursor_col < len(last)):
        return text, None
    repeated = any(line == last or line.startswith(last + " ") for line in lines[:-1])
    if not (_PROMPT.match(last) or repeated):
        return text, None
    marked = [PROMPT_MARK + line[len(last):] if line.rstrip() == last or line.startswith(last + " ") else line
              for line in lines]
    return "\n".join(marked), last


def summarize(tool: str, args: dict[str, Any], result: dict[str, Any]) -> str:
    """One line for a tool call: what was called and how it came out."""
    call = f"{tool} {json.dumps({k: clip(str(v), 40) for k, v in args.items()}, ensure_ascii=False)}"
    if not result.get("ok", True):
        return f"Result of {call}: failed: {clip(str(result.get('error', '')), 120)}"
    facts = []
    if tool == "read_terminal":
        text = result.get("text", "")
        facts.append(f"{text.count(chr(10)) + 1 if text else 0} lines, ending {clip(text[-80:], 80)!r}")
    elif tool == "list_terminals":
        facts.append(", ".join(f"{t.get('name')} ({t.get('role')})" for t in result.get("terminals", [])))
    for message in result.get("peer_messages", []):  # what peers said matters most: keep it
        facts.append(f"{message.get('from')} said {clip(str(message.get('text', '')), 200)!r}")
    return f"Result of {call}: ok" + (f"; {'; '.join(facts)}" if facts else "")


def action_summary(action_json: dict[str, Any]) -> str:
    """An action with its long strings clipped: still one JSON action, only shorter."""
    args = {k: clip(v, 80) if isinstance(v, str) else v for k, v in action_json.get("args", {}).items()}
    return json.dumps({"tool": action_json.get("tool"), "args": args}, ensure_ascii=False)
