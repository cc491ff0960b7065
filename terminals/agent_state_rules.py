"""Agent-state rules as data: load, validate and merge `assets/agents/*.toml` and the user's overrides.

One file per CLI (its kind is the file name): an `[agent]` table that says how to recognise the
CLI (command names; a screen or title signature for when it runs under a wrapper or a shell) and
an ordered list of `[[rule]]` tables, each naming the state it yields and the conditions that
must all hold (see `RULE_KEYS` and assets/agents/README.md). Regexes are compiled once, here.

User files of the same name in `<config dir>/agents/` are merged into the bundled ones:
`[agent]` keys replace the bundled keys one by one; a user rule whose name matches a bundled
rule replaces it where it stands (`disabled = true` removes it); a new rule goes before the
bundled rules unless it says `before = "name"` or `after = "name"`; `replace_rules = true` in
`[agent]` drops the bundled rules. A user file with a new name adds a new kind.
Every problem is reported as `AgentRulesError` naming the file, the rule and the fix.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ..protocol import toml_file
from .agent_state_kind import identify, program_name
from .agent_state_match import Matcher
from .agent_state_model import FALLBACK_KIND, STATES, AgentProfile, AgentRulesError, Region, Rule

AGENT_KEYS = {"name", "commands", "signature", "signature_title", "signature_region", "replace_rules"}
# condition keys; a rule matches when every condition it names holds
CONDITION_KEYS = {"region", "match", "not_match", "title", "cursor", "alt_screen", "blank", "exited",
                  "notification", "bell", "signal_within", "quiet_for", "output_within", "started_within",
                  "recognised", "job", "reading", "listening"}
RULE_KEYS = {"name", "state", "description", "disabled", "before", "after"} | CONDITION_KEYS
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
_REGION = re.compile(r"(screen|cursor_line)\Z|(bottom|top|above_cursor):([1-9][0-9]*)\Z")


@dataclass
class RuleBook:
    """Every kind's profile, plus the user files that were refused (when loaded leniently)."""

    profiles: dict[str, AgentProfile]
    errors: list[str] = field(default_factory=list)
    _by_command: dict[tuple[str, ...], str | None] = field(default_factory=dict, repr=False)

    def identify(self, command: Sequence[str]) -> str | None:
        """The kind a command runs (`npx @openai/codex` -> codex), or None when it names none."""
        key = tuple(command)
        if key not in self._by_command:
            owners = {name: kind for kind, p in self.profiles.items() for name in p.commands}
            self._by_command[key] = identify(key, owners)
        return self._by_command[key]


def bundled_dir() -> Path:
    return Path(str(resources.files("tikitaka.assets").joinpath("agents")))


def user_dir() -> Path:
    from ..protocol import paths  # computed lazily: importing paths costs nothing, calling it may

    return paths.config_dir() / "agents"


def load_rulebook(bundled: Path | None = None, user: Path | None = None, strict: bool = True) -> RuleBook:
    """Load the bundled rules and merge the user's. With `strict=False` a broken user file is
    left out (its kind keeps the bundled rules) and its error is kept in `RuleBook.errors`."""
    bundled = bundled or bundled_dir()
    user = user if user is not None else user_dir()
    raw = {path.stem: (_read(path), str(path)) for path in sorted(bundled.glob("*.toml"))}
    profiles = {kind: _profile(kind, layer, None) for kind, layer in raw.items()}
    if FALLBACK_KIND not in profiles:
        raise AgentRulesError(f"{bundled}: no {FALLBACK_KIND}.toml; it holds the rules for any other program")
    errors: list[str] = []
    for path in sorted(user.glob("*.toml")) if user.is_dir() else ():
        try:
            profiles[path.stem] = _profile(path.stem, raw.get(path.stem), (_read(path), str(path)))
        except AgentRulesError as exc:
            if strict:
                raise
            errors.append(str(exc))
    return RuleBook(profiles, errors)


Layer = tuple[dict[str, Any], str]  # a parsed file and its path


def _read(path: Path) -> dict[str, Any]:
    try:
        return toml_file.load(path)
    except toml_file.TomlError as exc:
        raise AgentRulesError(f"{path} {exc}; fix it or remove the file") from None


def _profile(kind: str, bundled: Layer | None, user: Layer | None) -> AgentProfile:
    """One validated profile from the bundled file, the user's file, or the user's merged into it."""
    src = (user or bundled)[1]  # type: ignore[index]
    if not _NAME.match(kind):
        raise AgentRulesError(f"{src}: {kind!r} is not a usable kind name; use lowercase letters, digits, - or _")
    agent: dict[str, Any] = {}
    rules: list[Layer] = []
    for layer, is_user in ((bundled, False), (user, True)):
        if layer is None:
            continue
        data, path = layer
        _check_keys(data, {"agent", "rule"}, path, "top level")
        table = data.get("agent", {})
        if not isinstance(table, dict):
            raise AgentRulesError(f"{path}: [agent] must be a table")
        _check_keys(table, AGENT_KEYS, path, "[agent]")
        agent.update(table)
        entries = data.get("rule", [])
        if not isinstance(entries, list):
            raise AgentRulesError(f"{path}: write rules as [[rule]] tables")
        if _typed(table.get("replace_rules", False), bool, path, "[agent] replace_rules"):
            rules = []
        rules = _merge_rules(rules, entries, path, front=is_user)
    return AgentProfile(
        kind=kind,
        name=_typed(agent.get("name", kind), str, src, "[agent] name"),
        commands=tuple(program_name(c) for c in _strings(agent.get("commands", []), src, "[agent] commands")),
        signature=_regex(agent.get("signature"), src, "[agent] signature"),
        signature_title=_regex(agent.get("signature_title"), src, "[agent] signature_title"),
        signature_region=_region(agent.get("signature_region", "screen"), src, "[agent] signature_region"),
        rules=tuple(_rule(entry, path, index) for index, (entry, path) in enumerate(rules, 1)),
        sources=tuple(layer[1] for layer in (bundled, user) if layer),
    )


def _merge_rules(base: list[Layer], entries: list[Any], src: str, front: bool) -> list[Layer]:
    merged = list(base)
    seen: set[str] = set()
    first = 0  # where the next new user rule goes, so that they keep their own order
    for index, entry in enumerate(entries, 1):
        where = f"{src}: rule #{index}"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise AgentRulesError(f"{where}: every [[rule]] needs name = \"...\" (lowercase letters, digits, - or _)")
        name = entry["name"]
        if name in seen:
            raise AgentRulesError(f"{where} ({name!r}): the name is used twice in this file; rule names must be unique")
        seen.add(name)
        names = [e["name"] for e, _ in merged]
        if "before" in entry and "after" in entry:
            raise AgentRulesError(f"{where} ({name!r}): give before or after, not both")
        anchor = entry.get("before", entry.get("after"))
        if anchor is not None and anchor not in names:
            raise AgentRulesError(f"{where} ({name!r}): no rule named {anchor!r} to place it by; "
                                  f"rules are: {', '.join(names) or 'none'}")
        _typed(entry.get("disabled", False), bool, f"{where} ({name!r})", "disabled")
        if name in names:  # replaces (or, disabled, removes) the rule of that name where it stands
            position = names.index(name)
            merged.pop(position)
            if not entry.get("disabled"):
                merged.insert(position, (entry, src))
        elif entry.get("disabled"):
            raise AgentRulesError(f"{where} ({name!r}): disables a rule that does not exist; rules are: {', '.join(names)}")
        elif anchor is not None:
            position = names.index(anchor) + (1 if "after" in entry else 0)
            merged.insert(position, (entry, src))
        elif front:  # a user's new rule is more specific than the bundled ones: it goes first
            merged.insert(first, (entry, src))
            first += 1
        else:
            merged.append((entry, src))
    return merged


def _rule(entry: dict[str, Any], src: str, index: int) -> Rule:
    name = entry["name"]
    where = f"{src}: rule #{index} ({name!r})"
    _check_keys(entry, RULE_KEYS, src, f"rule #{index} ({name!r})")
    if not _NAME.match(name):
        raise AgentRulesError(f"{where}: use lowercase letters, digits, - or _ in rule names")
    state = entry.get("state")
    if state not in STATES:
        raise AgentRulesError(f"{where}: state = {state!r} is not a state; use one of {', '.join(STATES)}")
    numbers = {key: _number(entry[key], where, key) for key in ("signal_within", "quiet_for", "output_within",
                                                                "started_within") if key in entry}
    flags = {key: _typed(entry[key], bool, where, key)
             for key in ("alt_screen", "blank", "exited", "bell", "recognised", "job", "reading", "listening")
             if key in entry}
    cursor = entry.get("cursor")
    if cursor not in (None, "visible", "hidden"):
        raise AgentRulesError(f"{where}: cursor = {cursor!r}; use \"visible\" or \"hidden\"")
    return Rule(
        name=name, state=state, source=src,
        region=_region(entry.get("region", "screen"), where, "region"),
        match=tuple(_pattern(p, where, "match") for p in _strings(entry.get("match", []), where, "match")),
        not_match=tuple(_pattern(p, where, "not_match") for p in _strings(entry.get("not_match", []), where, "not_match")),
        title=_regex(entry.get("title"), where, "title"),
        cursor=None if cursor is None else cursor == "visible",
        notification=_regex(entry.get("notification"), where, "notification"),
        # (for people, on one line: a file may wrap it over several)
        description=" ".join(_typed(entry.get("description", ""), str, where, "description").split()),
        **flags, **numbers,  # type: ignore[arg-type]  # each key checked against its field above
    )


def _check_keys(table: dict[str, Any], allowed: set[str], src: str, where: str) -> None:
    for key in table:
        if key not in allowed:
            near = difflib.get_close_matches(key, allowed, n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise AgentRulesError(f"{src}: {where}: unknown key {key!r}; {hint}allowed: {', '.join(sorted(allowed))}")


def _typed(value: Any, kind: type, where: str, key: str) -> Any:
    if not isinstance(value, kind):
        raise AgentRulesError(f"{where}: {key} must be a {kind.__name__}, not {value!r}")
    return value


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise AgentRulesError(f"{where}: {key} must be a number of seconds (0 or more), not {value!r}")
    return float(value)


def _strings(value: Any, where: str, key: str) -> list[str]:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise AgentRulesError(f"{where}: {key} must be a string or a list of strings, not {value!r}")
    return values


def _regex(pattern: Any, where: str, key: str) -> Matcher | None:
    if pattern is None:
        return None
    _typed(pattern, str, where, key)
    try:
        return Matcher(pattern, re.MULTILINE)  # ^ and $ are row boundaries
    except re.error as exc:
        raise AgentRulesError(f"{where}: {key} {pattern!r} is not a valid regex: {exc}") from None


def _pattern(pattern: str, where: str, key: str) -> Matcher:
    """One of a list's patterns (never None: `_strings` checked the list)."""
    matcher = _regex(pattern, where, key)
    assert matcher is not None
    return matcher


def _region(value: Any, where: str, key: str) -> Region:
    found = _REGION.match(value) if isinstance(value, str) else None
    if not found:
        raise AgentRulesError(f"{where}: {key} = {value!r}; use screen, cursor_line, bottom:N, top:N or above_cursor:N")
    return Region(found.group(1)) if found.group(1) else Region(found.group(2), int(found.group(3)))
