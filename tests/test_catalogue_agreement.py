"""The JSON schema and the GBNF grammar, both derived from the one catalogue table, admit the
same actions (issue 9): sampled valid and invalid actions, each checked by a JSON-schema
validator and by a GBNF matcher, must get the same verdict; and every admitted action parses.

Actions are written as `json.dumps` writes them (the grammar fixes spacing and member order,
which is what a constrained model produces; the schema does not care). "integer" means a JSON
integer literal, as in the grammars that llama.cpp and Ollama derive from a schema, so `40.0`
is not one (jsonschema's Draft 6+ default would call it an integer).
"""

from __future__ import annotations

import json

import jsonschema
from gbnf_match import Grammar
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tikitaka.protocol.catalogue import CATALOGUE, Shape, action_schema, gbnf
from tikitaka.protocol.keys import TOOL_KEYS
from tikitaka.protocol.toolcall import parse_action

_checker = jsonschema.Draft7Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
Validator = jsonschema.validators.extend(jsonschema.Draft7Validator, type_checker=_checker)

TAB_NAMES = ["sh", "Claude", 'tab "q" é']
ODD = ["x", "é", "\n", '"', "\\", "😀", "\x01", "\t"]
_cache: dict[Shape, tuple[Validator, Grammar]] = {}


def judges(shape: Shape) -> tuple[Validator, Grammar]:
    if shape not in _cache:
        schema = action_schema(shape=shape)
        Validator.check_schema(schema)
        _cache[shape] = (Validator(schema), Grammar(gbnf(shape=shape)))
    return _cache[shape]


def strings(bound: int) -> st.SearchStrategy[str]:
    near_bound = st.builds(lambda n, c: c * n, st.integers(max(0, bound - 2), bound + 2), st.sampled_from(ODD))
    return st.one_of(st.text(max_size=20), near_bound)


def value(arg, shape: Shape, tool: str) -> st.SearchStrategy:
    wrong_type = st.sampled_from([None, True, 3.5, 40.0, [], {}, "40"])
    if arg.kind == "tab":
        known = shape.tabs_for(tool) or ()
        return st.one_of(st.sampled_from(TAB_NAMES + ["Claud", ""]), st.sampled_from(list(known) or ["sh"]),
                         wrong_type, strings(arg.max_length))
    if arg.kind == "key":
        return st.one_of(st.sampled_from(TOOL_KEYS), st.sampled_from(['"', "\\", "f12", "alt+.", "ctrl+shift+left"]),
                         st.sampled_from(["Enter", "ctrl-c", "f13", "", "M-x", "é", "ab", "ctrl+alt+f5"]), wrong_type)
    if arg.kind == "integer":
        return st.one_of(st.integers(arg.low - 3, arg.high + 3), st.integers(-10**6, 10**6), wrong_type)
    return st.one_of(strings(shape.max_length(arg)), wrong_type)


@st.composite
def shapes(draw) -> Shape:
    tabs = tuple(draw(st.lists(st.sampled_from(TAB_NAMES), unique=True, max_size=3)))
    pairs = [(t.name, None) for t in CATALOGUE] + [(t.name, tab) for t in CATALOGUE for tab in tabs]
    banned = frozenset(draw(st.lists(st.sampled_from(pairs), max_size=3)))
    scale = draw(st.sampled_from([1.0, 0.5]))
    return Shape(tabs, banned, scale)


@st.composite
def actions(draw) -> tuple[Shape, str, dict]:
    shape = draw(shapes())
    tool = draw(st.sampled_from([t for t in CATALOGUE] + [None]))
    if tool is None:
        return shape, draw(st.sampled_from(["nope", "", "List_terminals"])), {}
    args = {}
    for arg in tool.args:
        if draw(st.integers(0, 9)) == 0:
            continue  # left out: fine for an optional argument, not for a required one
        args[arg.name] = draw(value(arg, shape, tool.name))
    if draw(st.integers(0, 19)) == 0:
        args[draw(st.sampled_from(["colour", "lines", "tab"]))] = "extra"
    order = [a.name for a in tool.args]  # members in table order, as json.dumps writes the action
    args = dict(sorted(args.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    return shape, tool.name, args


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions())
def test_schema_and_grammar_accept_the_same_actions(case):
    shape, tool, args = case
    validator, grammar = judges(shape)
    action = {"tool": tool, "args": args}
    text = json.dumps(action, ensure_ascii=False)
    by_schema = validator.is_valid(json.loads(text))
    by_grammar = grammar.accepts(text)
    assert by_schema == by_grammar, f"schema {by_schema}, grammar {by_grammar}: {text[:300]}"
    if by_schema:  # what either admits, the coordinator's parser takes as it is
        parsed = parse_action(text, allow_repair=False)
        assert parsed.tool == tool and {k: parsed.args[k] for k in args} == args


def test_both_accept_a_sample_of_each_kind():
    # a positive control: the property above must not pass by both rejecting everything
    shape = Shape(("sh", "Claude"))
    validator, grammar = judges(shape)
    for action in ({"tool": "list_terminals", "args": {}}, {"tool": "read_terminal", "args": {"tab": "sh"}},
                   {"tool": "read_terminal", "args": {"tab": "Claude", "lines": 200}},
                   {"tool": "wait", "args": {}}, {"tool": "send_key", "args": {"tab": "sh", "key": "ctrl+c"}},
                   {"tool": "done", "args": {"message": "é\n\"😀" * 300}}):
        text = json.dumps(action, ensure_ascii=False)
        assert validator.is_valid(action) and grammar.accepts(text), text[:80]
    for action in ({"tool": "read_terminal", "args": {"tab": "sh", "lines": 201}},
                   {"tool": "wait", "args": {"seconds": 2.5}}, {"tool": "read_terminal", "args": {}},
                   {"tool": "done", "args": {"message": "x" * 1201}}):
        text = json.dumps(action, ensure_ascii=False)
        assert not validator.is_valid(action) and not grammar.accepts(text), text[:80]
