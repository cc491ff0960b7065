"""Turning a model's output into one catalogued action, or a correction it can act on.

Small models wrap JSON in prose or code fences, answer with a bare `{"message": ...}`, invent
tool names, or get argument types wrong. Each case becomes either an `Action` or a small
exception whose message is written for the model (what was wrong, what is expected), never
a Python traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from pydantic import ValidationError

from .catalogue import TOOLS

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ToolCallError(ValueError):
    """The output could not become an action; the message is the correction for the model."""


class FormatError(ToolCallError):
    """Not one JSON action at all."""


class ArgumentError(ToolCallError):
    """A known tool with arguments that fail validation."""


class UnknownTool(ToolCallError):
    pass


@dataclass(frozen=True)
class Action:
    tool: str
    args: dict[str, Any]
    repaired: bool = False  # a bare {"message": ...} turned into done

    def canonical(self) -> str:
        return json.dumps([self.tool, self.args], sort_keys=True, ensure_ascii=False)

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": self.args}


def extract_json(text: str) -> Any:
    """The first complete JSON value in `text` (prose and code fences around it ignored)."""
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "{[":
            try:
                value, _end = decoder.raw_decode(text, index)
                return value
            except json.JSONDecodeError:
                continue
    raise FormatError(
        'your reply was not JSON. Reply with exactly one JSON object: {"tool": NAME, "args": {...}}'
    )


def parse_action(text: str, *, allow_repair: bool = True) -> Action:
    value = extract_json(text.strip())
    if isinstance(value, list):  # several calls: keep those with real names, take the first
        value = next((v for v in value if isinstance(v, dict) and _IDENTIFIER.match(str(_name(v) or ""))), None)
        if value is None:
            raise FormatError("no usable tool call in your reply: reply with one JSON object {\"tool\": NAME, \"args\": {...}}")
    if not isinstance(value, dict):
        raise FormatError('reply with a JSON object {"tool": NAME, "args": {...}}, not a bare value')
    name = _name(value)
    if name is None and "message" in value and allow_repair:
        return _validated("done", {"message": value["message"]}, repaired=True)
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise FormatError('the object needs a "tool" field naming one of: ' + ", ".join(TOOLS))
    if name not in TOOLS:
        raise UnknownTool(f"there is no tool named {name!r}; the tools are: {', '.join(TOOLS)}")
    args = value.get("args", value.get("arguments", {}))
    if isinstance(args, str):  # some models send the arguments as a JSON string
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            raise ArgumentError(f"{name}: 'args' must be a JSON object") from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ArgumentError(f"{name}: 'args' must be a JSON object, not {type(args).__name__}")
    return _validated(name, args)


def _name(value: dict[str, Any]) -> Any:
    if "tool" in value:
        return value["tool"]
    if "name" in value:
        return value["name"]
    function = value.get("function")
    return function.get("name") if isinstance(function, dict) else None


def _validated(tool: str, args: dict[str, Any], repaired: bool = False) -> Action:
    try:
        model = TOOLS[tool].model_validate(args)
    except ValidationError as exc:
        raise ArgumentError(f"{tool}: " + "; ".join(_explain(err) for err in exc.errors())) from None
    return Action(tool, model.model_dump(), repaired)


def _explain(err: Mapping[str, Any]) -> str:
    field = ".".join(str(part) for part in err.get("loc", ())) or "args"
    kind = err.get("type", "")
    got = err.get("input")
    if kind == "missing":
        return f"'{field}' is required"
    if kind == "extra_forbidden":
        return f"'{field}' is not an argument of this tool"
    message = err.get("msg", "is invalid").removeprefix("Value error, ")
    return f"'{field}' {message[0].lower() + message[1:]} (got {json.dumps(got, ensure_ascii=False)[:60]})"
