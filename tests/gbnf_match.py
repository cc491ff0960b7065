"""A small GBNF matcher for tests: does a grammar admit a whole text?

It reads the subset of llama.cpp's GBNF that `protocol.catalogue.gbnf` writes (one rule per
line; literals, character classes with ranges and negation, rule references, groups, `|`,
`?`, `*`, `+`, `{m,n}`) and matches by computing the set of positions each element can end
at, memoised per (rule, position). Independent of llama.cpp on purpose: the property test
compares the grammar with the JSON schema, and llama.cpp itself checks that it parses.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "^": "^",
            "/": "/"}


class Grammar:
    def __init__(self, text: str) -> None:
        self.rules: dict[str, Any] = {}
        for line in text.splitlines():
            if line.strip():
                name, _, body = line.partition("::=")
                self.rules[name.strip()] = _Parser(body.strip()).alternatives()

    def accepts(self, text: str) -> bool:
        matcher = _Matcher(self.rules, text)
        return len(text) in matcher.rule("root", 0)


class _Parser:
    def __init__(self, src: str) -> None:
        self.src, self.i = src, 0

    def _skip(self) -> None:
        while self.i < len(self.src) and self.src[self.i] == " ":
            self.i += 1

    def alternatives(self) -> Any:
        alts = [self.sequence()]
        self._skip()
        while self.i < len(self.src) and self.src[self.i] == "|":
            self.i += 1
            alts.append(self.sequence())
            self._skip()
        return ("alt", alts)

    def sequence(self) -> Any:
        items = []
        while True:
            self._skip()
            if self.i >= len(self.src) or self.src[self.i] in "|)":
                return ("seq", items)
            items.append(self.postfix(self.atom()))

    def atom(self) -> Any:
        c = self.src[self.i]
        if c == '"':
            return ("lit", self._string())
        if c == "[":
            return self._class()
        if c == "(":
            self.i += 1
            inner = self.alternatives()
            assert self.src[self.i] == ")", self.src[self.i:]
            self.i += 1
            return inner
        name = re.match(r"[A-Za-z0-9_-]+", self.src[self.i:])
        assert name, f"cannot parse at {self.src[self.i:]!r}"
        self.i += len(name.group())
        return ("ref", name.group())

    def postfix(self, node: Any) -> Any:
        while self.i < len(self.src):
            c = self.src[self.i]
            if c in "?*+":
                self.i += 1
                node = ("rep", node, 0 if c != "+" else 1, 1 if c == "?" else None)
            elif c == "{":
                end = self.src.index("}", self.i)
                body = self.src[self.i + 1:end]
                self.i = end + 1
                if "," in body:
                    low, high = body.split(",")
                    node = ("rep", node, int(low), int(high) if high.strip() else None)
                else:
                    node = ("rep", node, int(body), int(body))
            else:
                break
        return node

    def _char(self) -> str:
        c = self.src[self.i]
        if c != "\\":
            self.i += 1
            return c
        nxt = self.src[self.i + 1]
        size = {"x": 2, "u": 4, "U": 8}.get(nxt)
        if size:
            self.i += 2 + size
            return chr(int(self.src[self.i - size:self.i], 16))
        self.i += 2
        return _ESCAPES[nxt]

    def _string(self) -> str:
        self.i += 1
        out = []
        while self.src[self.i] != '"':
            out.append(self._char())
        self.i += 1
        return "".join(out)

    def _class(self) -> Any:
        self.i += 1
        negate = self.src[self.i] == "^"
        if negate:
            self.i += 1
        ranges = []
        while self.src[self.i] != "]":
            low = self._char()
            high = low
            if self.src[self.i] == "-" and self.src[self.i + 1] != "]":
                self.i += 1
                high = self._char()
            ranges.append((low, high))
        self.i += 1
        return ("class", negate, tuple(ranges))


class _Matcher:
    def __init__(self, rules: dict[str, Any], text: str) -> None:
        self.rules, self.text = rules, text
        self.rule = lru_cache(maxsize=None)(self._rule)

    def _rule(self, name: str, pos: int) -> frozenset[int]:
        return frozenset(self.match(self.rules[name], pos))

    def match(self, node: Any, pos: int) -> set[int]:
        kind = node[0]
        if kind == "lit":
            return {pos + len(node[1])} if self.text.startswith(node[1], pos) else set()
        if kind == "class":
            if pos >= len(self.text):
                return set()
            c = self.text[pos]
            inside = any(low <= c <= high for low, high in node[2])
            return {pos + 1} if inside != node[1] else set()
        if kind == "ref":
            return set(self.rule(node[1], pos))
        if kind == "alt":
            return set().union(*(self.match(alt, pos) for alt in node[1]))
        if kind == "seq":
            ends = {pos}
            for item in node[1]:
                ends = set().union(*(self.match(item, p) for p in ends)) if ends else set()
            return ends
        _, inner, low, high = node  # repetition
        ends, frontier, count = ({pos} if low == 0 else set()), {pos}, 0
        while frontier and (high is None or count < high):
            frontier = set().union(*(self.match(inner, p) for p in frontier)) - {p for p in frontier}
            count += 1
            if count >= low:
                ends |= frontier
        return ends
