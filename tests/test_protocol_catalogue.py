"""The tool catalogue as the model sees it: argument bounds, the JSON schema for Ollama's
`format`, the native tool definitions, and the GBNF grammar for llama.cpp (issue 4)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tikitaka.protocol.catalogue import (
    MESSAGE_MAX,
    TEXT_MAX,
    TOOLS,
    Shape,
    action_schema,
    describe_tools,
    gbnf,
    native_tools,
)

ReadTerminalArgs, SendKeyArgs, WaitArgs = TOOLS["read_terminal"], TOOLS["send_key"], TOOLS["wait"]

CATALOGUE = {"list_terminals", "read_terminal", "send_to_terminal", "send_key", "wait", "done"}


def test_exactly_the_six_tools_with_their_argument_names():
    assert set(TOOLS) == CATALOGUE
    assert {name: list(model.model_fields) for name, model in TOOLS.items()} == {
        "list_terminals": [], "read_terminal": ["tab", "lines"], "send_to_terminal": ["tab", "text"],
        "send_key": ["tab", "key"], "wait": ["seconds"], "done": ["message"]}


def test_argument_defaults_and_bounds():
    assert ReadTerminalArgs(tab="sh").lines == 40
    assert WaitArgs().seconds == 5
    for bad in (0, 201):
        with pytest.raises(ValidationError):
            ReadTerminalArgs(tab="sh", lines=bad)
    for bad in (0, 31, 2.5):
        with pytest.raises(ValidationError):
            WaitArgs(seconds=bad)
    with pytest.raises(ValidationError):
        TOOLS["done"](message="x" * (MESSAGE_MAX + 1))
    with pytest.raises(ValidationError):
        TOOLS["send_to_terminal"](tab="sh", text="x" * (TEXT_MAX + 1))
    with pytest.raises(ValidationError):
        ReadTerminalArgs(tab="sh", lines=10, colour="red")  # unknown arguments are refused


def test_key_names_are_canonicalised_and_unknown_keys_refused():
    assert SendKeyArgs(tab="sh", key="Ctrl-C").key == "ctrl+c"
    assert SendKeyArgs(tab="sh", key="ENTER").key == "enter"
    with pytest.raises(ValidationError, match="ctrl\\+a .. ctrl\\+z"):
        SendKeyArgs(tab="sh", key="hyper+q")


def variant(schema, tool):
    return next(v for v in schema["anyOf"] if v["properties"]["tool"]["enum"] == [tool])


def test_schema_is_a_union_discriminated_by_tool_with_tabs_as_an_enum():
    schema = action_schema(["Claude", "sh"])
    assert {v["properties"]["tool"]["enum"][0] for v in schema["anyOf"]} == CATALOGUE
    for tool in ("read_terminal", "send_to_terminal", "send_key"):
        assert variant(schema, tool)["properties"]["args"]["properties"]["tab"]["enum"] == ["Claude", "sh"]
    read = variant(schema, "read_terminal")["properties"]["args"]["properties"]["lines"]
    assert (read["minimum"], read["maximum"], read["default"]) == (1, 200, 40)
    assert variant(schema, "read_terminal")["properties"]["args"]["required"] == ["tab"]  # lines may be left out
    assert variant(schema, "wait")["properties"]["args"]["required"] == []
    assert variant(schema, "done")["properties"]["args"]["properties"]["message"]["maxLength"] == MESSAGE_MAX
    assert variant(schema, "send_to_terminal")["properties"]["args"]["properties"]["text"]["maxLength"] == TEXT_MAX
    assert "ctrl+z" in variant(schema, "send_key")["properties"]["args"]["properties"]["key"]["enum"]
    assert variant(schema, "done")["properties"]["args"]["required"] == ["message"]
    json.dumps(schema)  # it goes over the wire as-is


def test_schema_follows_the_tabs_of_the_moment():
    assert action_schema(["a"]) != action_schema(["a", "b"])
    # with no tabs there is nothing to enumerate: any string, the executor explains
    assert variant(action_schema([]), "read_terminal")["properties"]["args"]["properties"]["tab"] == {
        "type": "string", "minLength": 1, "maxLength": 64}


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
    assert 'read-terminal-tab ::= "\\"Claude\\"" | "\\"sh\\""' in grammar
    assert f"char{{0,{MESSAGE_MAX}}}" in grammar and f"char{{0,{TEXT_MAX}}}" in grammar


def test_a_banned_call_leaves_the_schema_and_the_grammar_of_the_turn():
    # the repeat guard's call is taken away from the next turn, so a looping model moves on
    shape = Shape(("Claude", "sh"), banned=frozenset({("list_terminals", None), ("read_terminal", "sh")}))
    schema = action_schema(shape=shape)
    tools = {v["properties"]["tool"]["enum"][0] for v in schema["anyOf"]}
    assert tools == CATALOGUE - {"list_terminals"}
    assert variant(schema, "read_terminal")["properties"]["args"]["properties"]["tab"]["enum"] == ["Claude"]
    assert variant(schema, "send_to_terminal")["properties"]["args"]["properties"]["tab"]["enum"] == ["Claude", "sh"]
    grammar = gbnf(shape=shape)
    assert "list-terminals" not in grammar and 'read-terminal-tab ::= "\\"Claude\\""\n' in grammar
    # a tool whose every tab is taken goes; `done` never does
    gone = Shape(("sh",), banned=frozenset({("read_terminal", "sh"), ("done", None)}))
    assert {v["properties"]["tool"]["enum"][0] for v in action_schema(shape=gone)["anyOf"]} == CATALOGUE - {"read_terminal"}


def test_after_a_cut_off_strings_are_shorter_and_reasoning_has_a_bounded_place():
    short = Shape(("sh",), string_scale=0.5)
    assert variant(action_schema(shape=short), "done")["properties"]["args"]["properties"]["message"]["maxLength"] \
        == MESSAGE_MAX // 2
    assert f"char{{0,{MESSAGE_MAX // 2}}}" in gbnf(shape=short)
    thinking = gbnf(shape=Shape(("sh",), think_chars=300))
    assert thinking.startswith('root ::= ( "<think>" [^<]{0,300} "</think>" ws )? "{"')
    assert "<think>" not in gbnf(["sh"])


def test_protocol_imports_nothing_of_ours_outside_protocol():
    # the design's arrows: protocol is pure data and imports no other package of ours
    import ast
    from pathlib import Path

    import tikitaka.protocol as protocol

    for path in Path(protocol.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1, f"{path.name} imports from outside protocol: {ast.unparse(node)}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.startswith("tikitaka.") and not n.startswith("tikitaka.protocol") for n in names), \
                    f"{path.name}: {ast.unparse(node)}"
