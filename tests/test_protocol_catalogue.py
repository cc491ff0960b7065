"""The tool catalogue as the model sees it: argument bounds, the JSON schema for Ollama's
`format`, the native tool definitions, and the GBNF grammar for llama.cpp (issue 4)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tikitaka.protocol.catalogue import (TOOLS, ReadTerminalArgs, SendKeyArgs, WaitArgs, action_schema,
                                         describe_tools, gbnf, native_tools)

CATALOGUE = {"list_terminals", "read_terminal", "send_to_terminal", "send_key", "wait", "done"}


def test_exactly_the_six_tools_with_their_argument_names():
    assert set(TOOLS) == CATALOGUE
    assert {name: list(model.model_fields) for name, model in TOOLS.items()} == {
        "list_terminals": [], "read_terminal": ["tab", "lines"], "send_to_terminal": ["tab", "text"],
        "send_key": ["tab", "key"], "wait": ["seconds"], "done": ["message"]}


def test_argument_defaults_and_bounds():
    assert ReadTerminalArgs(tab="sh").lines == 40
    assert WaitArgs().seconds == 5
    for bad in (0, 401):
        with pytest.raises(ValidationError):
            ReadTerminalArgs(tab="sh", lines=bad)
    for bad in (0, 31):
        with pytest.raises(ValidationError):
            WaitArgs(seconds=bad)
    with pytest.raises(ValidationError):
        ReadTerminalArgs(tab="sh", lines=10, colour="red")  # unknown arguments are refused


def test_key_names_are_canonicalised_and_unknown_keys_refused():
    assert SendKeyArgs(tab="sh", key="Ctrl-C").key == "ctrl+c"
    assert SendKeyArgs(tab="sh", key="ENTER").key == "enter"
    with pytest.raises(ValidationError, match="ctrl\\+a .. ctrl\\+z"):
        SendKeyArgs(tab="sh", key="hyper+q")


def variant(schema, tool):
    return next(v for v in schema["anyOf"] if v["properties"]["tool"]["const"] == tool)


def test_schema_is_a_union_discriminated_by_tool_with_tabs_as_an_enum():
    schema = action_schema(["Claude", "sh"])
    assert {v["properties"]["tool"]["const"] for v in schema["anyOf"]} == CATALOGUE
    for tool in ("read_terminal", "send_to_terminal", "send_key"):
        assert variant(schema, tool)["properties"]["args"]["properties"]["tab"]["enum"] == ["Claude", "sh"]
    read = variant(schema, "read_terminal")["properties"]["args"]["properties"]["lines"]
    assert (read["minimum"], read["maximum"]) == (1, 400)
    assert "ctrl+z" in variant(schema, "send_key")["properties"]["args"]["properties"]["key"]["enum"]
    assert variant(schema, "done")["properties"]["args"]["required"] == ["message"]
    json.dumps(schema)  # it goes over the wire as-is


def test_schema_follows_the_tabs_of_the_moment():
    assert action_schema(["a"]) != action_schema(["a", "b"])
    # with no tabs there is nothing to enumerate: any string, the executor explains
    assert variant(action_schema([]), "read_terminal")["properties"]["args"]["properties"]["tab"] == {"type": "string"}


def test_native_tool_definitions_cover_the_catalogue():
    tools = native_tools(["sh"])
    assert {t["function"]["name"] for t in tools} == CATALOGUE
    send = next(t for t in tools if t["function"]["name"] == "send_to_terminal")["function"]
    assert send["parameters"]["required"] == ["tab", "text"]
    assert send["parameters"]["properties"]["tab"]["enum"] == ["sh"]


def test_system_prompt_description_names_every_tool_and_argument():
    text = describe_tools()
    for tool, model in TOOLS.items():
        assert tool in text
        for arg in model.model_fields:
            assert arg in text


def test_gbnf_names_every_tool_and_the_tabs():
    grammar = gbnf(["Claude", "sh"])
    for tool in CATALOGUE:
        assert f'\\"{tool}\\"' in grammar
    assert 'tab ::= "\\"Claude\\"" | "\\"sh\\""' in grammar
