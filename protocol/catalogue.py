"""The coordinator's tool catalogue: one table, and everything derived from it.

`CATALOGUE` lists each tool once: its name, what it does, and its arguments with their kind,
bounds and defaults. From it come the pydantic models that validate parsed actions (`TOOLS`),
the JSON schema that constrains Ollama (`format=`) and OpenAI-compatible servers
(`json_schema`), the native `tools=` definitions, the GBNF grammar for llama.cpp, and the
catalogue in words for the system prompt. Adding a tool is one entry here plus one function
in the coordinator's tool executor.

One action per model turn, shaped `{"tool": NAME, "args": {...}}`. Tabs are addressed by
name; the schema and grammar are built each turn so `tab` is an enum of the tabs that exist,
minus calls the repeat guard would block (`Shape.banned`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from .keys import TOOL_KEYS, UnknownKey, brief, canonical_key, summary

TAB_MAX = 64  # characters in a tab name
LINES_MAX = 200  # read_terminal lines
TEXT_MAX = 800  # characters typed by one send_to_terminal
MESSAGE_MAX = 1200  # characters of a done message


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str  # "tab" | "string" | "integer" | "key"
    default: int | None = None  # an argument with a default may be left out
    low: int = 0  # integers: inclusive bounds
    high: int = 0
    max_length: int = 0  # strings: characters (a JSON escape such as \n is one)

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class Tool:
    name: str
    about: str
    args: tuple[Arg, ...] = ()


TAB = Arg("tab", "tab", max_length=TAB_MAX)

CATALOGUE: tuple[Tool, ...] = (
    Tool("list_terminals", "every tab: name, command, role, running/exited, idle/busy, handshake state"),
    Tool("read_terminal", f"the last `lines` lines (default 40, max {LINES_MAX}) of a tab as plain text; "
                          "when they do not fit, the most recent lines that do",
         (TAB, Arg("lines", "integer", default=40, low=1, high=LINES_MAX))),
    Tool("send_to_terminal", "type `text` into a tab and press Enter",
         (TAB, Arg("text", "string", max_length=TEXT_MAX))),
    Tool("send_key", "press one key in a tab: " + brief(), (TAB, Arg("key", "key"))),
    Tool("wait", "wait `seconds` (1-30, default 5); returns early when a peer message arrives",
         (Arg("seconds", "integer", default=5, low=1, high=30),)),
    Tool("done", "finish; `message` is the answer shown to the user",
         (Arg("message", "string", max_length=MESSAGE_MAX),)),
)
BY_NAME: dict[str, Tool] = {tool.name: tool for tool in CATALOGUE}


@dataclass(frozen=True)
class Shape:
    """What one turn's schema or grammar admits beyond the table: the tabs that exist, calls
    taken away (`(tool, tab)`; tab None for tools without one), strings scaled down after a
    cut-off, and room for a bounded `<think>...</think>` before the action (grammar only)."""

    tabs: tuple[str, ...] = ()
    banned: frozenset[tuple[str, str | None]] = frozenset()
    string_scale: float = 1.0
    think_chars: int = 0

    def max_length(self, arg: Arg) -> int:
        return max(16, int(arg.max_length * self.string_scale)) if arg.kind == "string" else arg.max_length

    def tabs_for(self, tool: str) -> tuple[str, ...] | None:
        """The tab names `tool` may name (None: any string), or () when it is taken away."""
        if not self.tabs:
            return () if any(t == tool for t, _ in self.banned) else None
        return tuple(tab for tab in self.tabs if (tool, tab) not in self.banned)

    def tools(self) -> list[Tool]:
        kept = []
        for tool in CATALOGUE:
            has_tab = any(a.kind == "tab" for a in tool.args)
            if tool.name != "done" and ((tool.name, None) in self.banned or (has_tab and self.tabs_for(tool.name) == ())):
                continue
            kept.append(tool)
        return kept


def _shape(tabs: Any, shape: Shape | None) -> Shape:
    shape = shape or Shape()
    return Shape(tuple(tabs), shape.banned, shape.string_scale, shape.think_chars) if tabs is not None else shape


# -- pydantic models (validation of parsed actions) -----------------------------------------


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _known_key(value: str) -> str:
    try:  # "Ctrl-C", "C-c", "^C" all mean ctrl+c
        return canonical_key(value)
    except UnknownKey:
        raise ValueError("must be one of: " + summary()) from None


def _field(arg: Arg) -> tuple[Any, Any]:
    default = ... if arg.required else arg.default
    if arg.kind == "integer":
        return int, Field(default, ge=arg.low, le=arg.high)
    if arg.kind == "key":
        return Annotated[str, AfterValidator(_known_key)], Field(default)
    return str, Field(default, min_length=1 if arg.kind == "tab" else 0, max_length=arg.max_length)


def _model(tool: Tool) -> type[_Args]:
    name = "".join(part.title() for part in tool.name.split("_")) + "Args"
    fields: dict[str, Any] = {arg.name: _field(arg) for arg in tool.args}
    return create_model(name, __base__=_Args, **fields)


TOOLS: dict[str, type[_Args]] = {tool.name: _model(tool) for tool in CATALOGUE}


# -- JSON schema and native tools -----------------------------------------------------------


def _arg_schema(arg: Arg, tool: str, shape: Shape) -> dict[str, Any]:
    if arg.kind == "tab":
        tabs = shape.tabs_for(tool)
        return {"type": "string", "enum": list(tabs)} if tabs else {"type": "string", "minLength": 1,
                                                                     "maxLength": arg.max_length}
    if arg.kind == "key":
        return {"type": "string", "enum": list(TOOL_KEYS)}
    if arg.kind == "integer":
        return {"type": "integer", "minimum": arg.low, "maximum": arg.high, "default": arg.default}
    return {"type": "string", "maxLength": shape.max_length(arg)}


def _parameters(tool: Tool, shape: Shape) -> dict[str, Any]:
    return {"type": "object", "properties": {a.name: _arg_schema(a, tool.name, shape) for a in tool.args},
            "required": [a.name for a in tool.args if a.required], "additionalProperties": False}


def action_schema(tabs: Any = None, shape: Shape | None = None) -> dict[str, Any]:
    """JSON schema of one action: a union discriminated by `tool` (an `enum` of one, which
    every draft and every backend's converter reads), `tab` an enum of the tabs."""
    shape = _shape(tabs, shape)
    return {"anyOf": [{
        "type": "object",
        "properties": {"tool": {"type": "string", "enum": [tool.name]}, "args": _parameters(tool, shape)},
        "required": ["tool", "args"],
        "additionalProperties": False,
    } for tool in shape.tools()]}


def native_tools(tabs: Any = None, shape: Shape | None = None) -> list[dict[str, Any]]:
    """The catalogue as native tool definitions (used instead of a schema, never with one)."""
    shape = _shape(tabs, shape)
    return [{"type": "function", "function": {"name": tool.name, "description": tool.about,
                                              "parameters": _parameters(tool, shape)}}
            for tool in shape.tools()]


# -- GBNF (llama.cpp) -----------------------------------------------------------------------


def _lit(text: str) -> str:
    """A GBNF literal matching `text` exactly."""
    return json.dumps(text)


def _json_lit(text: str) -> str:
    """A GBNF literal matching `text` written as a JSON string."""
    return _lit(json.dumps(text, ensure_ascii=False))


def _value_rule(arg: Arg, tool: str, shape: Shape) -> str:
    if arg.kind == "tab":
        tabs = shape.tabs_for(tool)
        return " | ".join(_json_lit(t) for t in tabs) if tabs else f'"\\"" char{{1,{arg.max_length}}} "\\""'
    if arg.kind == "key":
        return " | ".join(_json_lit(k) for k in TOOL_KEYS)
    if arg.kind == "integer":
        return _int_range(arg.low, arg.high)
    return f'"\\"" char{{0,{shape.max_length(arg)}}} "\\""'


def _int_range(low: int, high: int) -> str:
    """GBNF for the decimal integers low..high (no sign, no leading zeros)."""
    alts = []
    for size in range(len(str(low)), len(str(high)) + 1):
        lo, hi = max(low, 10 ** (size - 1) if size > 1 else 0), min(high, 10 ** size - 1)
        if lo <= hi:
            alts.append(_digits(str(lo), str(hi)))
    return " | ".join(alts)


def _digits(lo: str, hi: str) -> str:
    """GBNF for the digit strings lo..hi of one length."""
    if lo == hi:
        return _lit(lo)
    if len(lo) == 1:
        return f"[{lo}-{hi}]"
    if lo[0] == hi[0]:
        return f"{_lit(lo[0])} {_digits(lo[1:], hi[1:])}"
    rest = len(lo) - 1
    parts = [f"{_lit(lo[0])} {_digits(lo[1:], '9' * rest)}"]
    if int(hi[0]) - int(lo[0]) > 1:
        parts.append(f"[{int(lo[0]) + 1}-{int(hi[0]) - 1}]" + " [0-9]" * rest)
    parts.append(f"{_lit(hi[0])} {_digits('0' * rest, hi[1:])}")
    return "( " + " | ".join(parts) + " )"


def _members(args: list[Arg], rule: dict[str, str], comma: bool) -> str:
    """The object's members in table order: each optional one may be left out."""
    if not args:
        return ""
    arg, rest = args[0], args[1:]
    member = ('"," ws ' if comma else "") + f'{_lit(json.dumps(arg.name) + ":")} ws {rule[arg.name]} ws'
    with_it = f"{member} {_members(rest, rule, True)}".strip()
    if arg.required:
        return with_it
    without = _members(rest, rule, comma)
    return f"( {with_it} | {without} )" if without else f"( {with_it} )?"


def gbnf(tabs: Any = None, shape: Shape | None = None) -> str:
    """A llama.cpp grammar that admits exactly the actions `action_schema` admits, written
    as `json.dumps` writes them (one space after `:` and `,`, members in table order)."""
    shape = _shape(tabs, shape)
    lines, names = [], []
    for tool in shape.tools():
        name = tool.name.replace("_", "-")  # GBNF rule names are letters, digits and dashes
        rule = {}
        for arg in tool.args:
            rule[arg.name] = f"{name}-{arg.name}"
            lines.append(f"{rule[arg.name]} ::= {_value_rule(arg, tool.name, shape)}")
        members = _members(list(tool.args), rule, False)
        lines.append(f'{name} ::= {_json_lit(tool.name)} ws "," ws {_lit(json.dumps("args") + ":")} ws '
                     f'"{{" ws {members} "}}"'.replace("ws  ", "ws "))
        names.append(name)
    think = f'( "<think>" [^<]{{0,{shape.think_chars}}} "</think>" ws )? ' if shape.think_chars else ""
    return "\n".join([
        f'root ::= {think}"{{" ws {_lit(json.dumps("tool") + ":")} ws action ws "}}"',
        "action ::= " + " | ".join(names),
        *lines,
        # one character of a JSON string: anything but a quote, a backslash or a control
        # character, or one escape (each decodes to one character, as maxLength counts)
        'char ::= [^"\\\\\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt] | "\\\\u" [0-9a-fA-F]{4}',
        "ws ::= [ ]?",
    ])


def describe_tools() -> str:
    """The catalogue in words, for the system prompt."""
    lines = []
    for tool in CATALOGUE:
        args = ", ".join(a.name if a.required else f"{a.name}={a.default}" for a in tool.args) or "no arguments"
        lines.append(f"- {tool.name} ({args}): {tool.about}")
    return "\n".join(lines)
