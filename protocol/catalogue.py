"""The coordinator's tool catalogue: six tools, their argument models, the JSON schema that
constrains Ollama's output (`format=`), and the GBNF grammar that constrains llama.cpp's.

One action per model turn, shaped `{"tool": NAME, "args": {...}}`. Tabs are addressed by
name; the schema and the grammar are regenerated each turn so `tab` is an enum of the tabs
that exist right now.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..terminals.keys import KEY_NAMES, UnknownKey, canonical_key


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListTerminalsArgs(_Args):
    pass


class ReadTerminalArgs(_Args):
    tab: str = Field(min_length=1)
    lines: int = Field(40, ge=1, le=400)


class SendToTerminalArgs(_Args):
    tab: str = Field(min_length=1)
    text: str


class SendKeyArgs(_Args):
    tab: str = Field(min_length=1)
    key: str

    @field_validator("key")
    @classmethod
    def _known_key(cls, value: str) -> str:
        try:  # "Ctrl-C", "C-c", "^C" all mean ctrl+c
            return canonical_key(value)
        except UnknownKey:
            raise ValueError("must be one of: " + ", ".join(KEY_NAMES[:15]) + ", ctrl+a .. ctrl+z") from None


class WaitArgs(_Args):
    seconds: float = Field(5, ge=1, le=30)


class DoneArgs(_Args):
    message: str


TOOLS: dict[str, type[_Args]] = {
    "list_terminals": ListTerminalsArgs,
    "read_terminal": ReadTerminalArgs,
    "send_to_terminal": SendToTerminalArgs,
    "send_key": SendKeyArgs,
    "wait": WaitArgs,
    "done": DoneArgs,
}

DESCRIPTIONS = {
    "list_terminals": "every tab: name, command, role, running/exited, idle/busy, handshake state",
    "read_terminal": "the last `lines` lines (default 40, max 400) of a tab as plain text",
    "send_to_terminal": "type `text` into a tab and press Enter",
    "send_key": "press one named key in a tab: " + " ".join(KEY_NAMES),
    "wait": "wait `seconds` (1-30); returns early when a peer message arrives",
    "done": "finish; `message` is the answer shown to the user",
}


def _properties(tool: str, tabs: list[str]) -> tuple[dict[str, Any], list[str]]:
    tab = {"type": "string", "enum": tabs} if tabs else {"type": "string"}
    return {
        "list_terminals": ({}, []),
        "read_terminal": ({"tab": tab, "lines": {"type": "integer", "minimum": 1, "maximum": 400}}, ["tab"]),
        "send_to_terminal": ({"tab": tab, "text": {"type": "string"}}, ["tab", "text"]),
        "send_key": ({"tab": tab, "key": {"type": "string", "enum": list(KEY_NAMES)}}, ["tab", "key"]),
        "wait": ({"seconds": {"type": "integer", "minimum": 1, "maximum": 30}}, ["seconds"]),
        "done": ({"message": {"type": "string"}}, ["message"]),
    }[tool]


def action_schema(tabs: list[str]) -> dict[str, Any]:
    """JSON schema of one action: a union discriminated by `tool`, `tab` an enum of `tabs`."""
    variants = []
    for tool in TOOLS:
        properties, required = _properties(tool, tabs)
        variants.append({
            "type": "object",
            "properties": {
                "tool": {"type": "string", "const": tool},
                "args": {"type": "object", "properties": properties, "required": required,
                         "additionalProperties": False},
            },
            "required": ["tool", "args"],
            "additionalProperties": False,
        })
    return {"anyOf": variants}


def native_tools(tabs: list[str]) -> list[dict[str, Any]]:
    """The catalogue as Ollama native tool definitions (used instead of `format`, never with it)."""
    tools = []
    for tool in TOOLS:
        properties, required = _properties(tool, tabs)
        tools.append({"type": "function", "function": {
            "name": tool, "description": DESCRIPTIONS[tool],
            "parameters": {"type": "object", "properties": properties, "required": required},
        }})
    return tools


def _gbnf_literal(text: str) -> str:
    return json.dumps(json.dumps(text))  # a JSON string, quoted again as a GBNF literal


def gbnf(tabs: list[str]) -> str:
    """A llama.cpp grammar that admits exactly one catalogued action."""
    tab_rule = " | ".join(_gbnf_literal(t) for t in tabs) if tabs else "string"
    key_rule = " | ".join(_gbnf_literal(k) for k in KEY_NAMES)
    return "\n".join([
        'root ::= "{" ws "\\"tool\\":" ws action ws "}"',
        "action ::= list | read | send | key | wait | done",
        'list ::= "\\"list_terminals\\"" ws "," ws "\\"args\\":" ws "{" ws "}"',
        'read ::= "\\"read_terminal\\"" ws "," ws "\\"args\\":" ws "{" ws "\\"tab\\":" ws tab ws "," ws "\\"lines\\":" ws lines ws "}"',
        'send ::= "\\"send_to_terminal\\"" ws "," ws "\\"args\\":" ws "{" ws "\\"tab\\":" ws tab ws "," ws "\\"text\\":" ws string ws "}"',
        'key ::= "\\"send_key\\"" ws "," ws "\\"args\\":" ws "{" ws "\\"tab\\":" ws tab ws "," ws "\\"key\\":" ws keyname ws "}"',
        'wait ::= "\\"wait\\"" ws "," ws "\\"args\\":" ws "{" ws "\\"seconds\\":" ws seconds ws "}"',
        'done ::= "\\"done\\"" ws "," ws "\\"args\\":" ws "{" ws "\\"message\\":" ws string ws "}"',
        f"tab ::= {tab_rule}",
        f"keyname ::= {key_rule}",
        'lines ::= [1-9] | [1-9] [0-9] | [1-3] [0-9] [0-9] | "400"',
        'seconds ::= [1-9] | [1-2] [0-9] | "30"',
        'string ::= "\\"" ( [^"\\\\\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt] )* "\\""',
        'ws ::= [ ]?',
    ])


def describe_tools() -> str:
    """The catalogue in words, for the system prompt."""
    lines = []
    for tool, model in TOOLS.items():
        args = ", ".join(model.model_fields) or "no arguments"
        lines.append(f"- {tool} ({args}): {DESCRIPTIONS[tool]}")
    return "\n".join(lines)
