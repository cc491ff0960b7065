"""Checking a JSON object against a TypedDict, with errors a user can act on.

The IPC ops (`protocol.ops`) describe their arguments as TypedDicts: free to import on the
command line's fast path (which already loads `typing`), readable as documentation, and
checked here on the host. Supported annotations: `str`, `int` (never `bool`), `float`,
`bool`, `list[T]`, `dict[str, T]`, `Literal[...]`, `T | None`, nested TypedDicts, and
`Annotated[T, Range(...)]` (numbers) or `Annotated[T, Length(...)]` (strings, lists) for bounds. Unknown keys are refused, so a misspelt option is an
error instead of being ignored. (pydantic would do this too, but costs the host nothing here
and the command line nothing at all.)
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

_UNIONS = (Union, types.UnionType)  # `Optional[X]` and `X | None`


class Range:
    """`Annotated[int, Range(1, 400)]`: a number from `low` to `high`, inclusive."""

    def __init__(self, low: float | None = None, high: float | None = None) -> None:
        self.low, self.high = low, high


class Length:
    """`Annotated[str, Length(min=1, max=64)]`: a string (characters) or a list (items) of
    bounded length."""

    def __init__(self, min: int = 0, max: int | None = None) -> None:  # noqa: A002 - reads best
        self.min, self.max = min, max


class SchemaError(ValueError):
    """The value does not fit; the message names the field and what it should be."""


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(shape: type) -> dict[str, Any]:
    hints = _HINTS.get(shape)
    if hints is None:
        hints = _HINTS[shape] = typing.get_type_hints(shape, include_extras=True)
    return hints


def check(shape: type, value: Any, where: str = "args") -> dict[str, Any]:
    """`value` checked against TypedDict `shape`; returns it unchanged or raises SchemaError."""
    if not isinstance(value, dict):
        raise SchemaError(f"'{where}' must be an object")
    hints = _hints(shape)
    unknown = sorted(set(value) - set(hints))
    if unknown:
        known = ", ".join(hints) or "none"
        raise SchemaError(f"unknown argument '{unknown[0]}' (arguments: {known})")
    for key in sorted(shape.__required_keys__):  # type: ignore[attr-defined]
        if key not in value:
            raise SchemaError(f"'{key}' is required")
    for key, item in value.items():
        _check(hints[key], item, key)
    return value


def describe(annotation: Any) -> str:
    """An annotation in words, for error messages and `protocol/README.md`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        base, bounds = args[0], args[1:]
        words = describe(base)
        for bound in bounds:
            if isinstance(bound, Range):
                words += _range_words(bound)
            elif isinstance(bound, Length):
                if bound.min:
                    words = words.replace("a ", "a non-empty ", 1)
                if bound.max:
                    words += f" of at most {bound.max} {'items' if base is not str else 'characters'}"
        return words
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in _UNIONS:
        return " or ".join(describe(a) for a in args)
    if origin is list:
        return f"a list of {describe(args[0]).removeprefix('a ').removeprefix('an ')}s" if args else "a list"
    if origin is dict:
        return "an object"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false",
            type(None): "null"}.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _range_words(bound: Range) -> str:
    if bound.low is not None and bound.high is not None:
        return f" from {bound.low:g} to {bound.high:g}"
    if bound.low is not None:
        return f" of at least {bound.low:g}"
    return f" of at most {bound.high:g}"


def _check(annotation: Any, value: Any, where: str) -> None:
    if not _fits(annotation, value):
        raise SchemaError(f"'{where}' must be {describe(annotation)}")


_PARTS: dict[Any, tuple[Any, tuple[Any, ...]]] = {}


def _parts(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """(origin, args) of an annotation, looked up once: every request and reply is checked,
    and `typing.get_origin`/`get_args` were most of the cost (a third of a quick op's CPU)."""
    try:
        return _PARTS[annotation]
    except KeyError:
        parts = _PARTS[annotation] = (typing.get_origin(annotation), typing.get_args(annotation))
        return parts
    except TypeError:  # unhashable: not cached
        return typing.get_origin(annotation), typing.get_args(annotation)


def _fits(annotation: Any, value: Any) -> bool:  # noqa: PLR0911 - one case per kind of type
    origin, args = _parts(annotation)
    if origin is typing.Annotated:
        if not _fits(args[0], value):
            return False
        for bound in args[1:]:
            if isinstance(bound, Range) and not _in_range(bound, value):
                return False
            if isinstance(bound, Length) and not bound.min <= len(value) <= (bound.max or len(value)):
                return False
        return True
    if origin is Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if origin in _UNIONS:
        return any(_fits(a, value) for a in args)
    if origin is list:
        return isinstance(value, list) and all(_fits(args[0], v) for v in value) if args else isinstance(value, list)
    if origin is dict:
        return isinstance(value, dict) and all(isinstance(k, str) and _fits(args[1], v) for k, v in value.items())
    if annotation is Any:
        return True
    if annotation is type(None):
        return value is None
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(annotation, type) and hasattr(annotation, "__required_keys__"):
        try:
            check(annotation, value)
        except SchemaError:
            return False
        return True
    return isinstance(value, annotation)


def _in_range(bound: Range, value: float) -> bool:
    return (bound.low is None or value >= bound.low) and (bound.high is None or value <= bound.high)
