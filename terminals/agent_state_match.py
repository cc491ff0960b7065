"""A compiled rule regex with a substring pre-check, so most rules fail without running `re`.

Python's `re` walks the whole region for a pattern that does not start with a literal (`^ *❯ \\d`
in MULTILINE mode tries every row); a rule file's patterns are mostly literal text. `Matcher`
finds, once, the literal runs every match must contain (`Esc to cancel`; one of `Do you want
to` / `Would you like to`) and tests them with `in` (C speed) before the regex. When the
pattern's structure is not understood the pre-check is simply absent: it never changes a result.
"""

from __future__ import annotations

import re
from typing import Iterable

try:  # the parser `re` itself uses; private, hence the fallback to no pre-check at all
    import re._parser as _sre  # type: ignore[import-not-found]
    from re._constants import BRANCH, LITERAL, SUBPATTERN  # type: ignore[import-not-found]
except ImportError:  # Python 3.10
    try:
        import sre_parse as _sre  # type: ignore[no-redef]
        from sre_constants import BRANCH, LITERAL, SUBPATTERN  # type: ignore[no-redef]
    except ImportError:  # pragma: no cover - some other Python
        _sre = None

Requirement = tuple[str, ...]  # at least one of these substrings is in any text the pattern matches


class Matcher:
    __slots__ = ("pattern", "needs")

    def __init__(self, source: str, flags: int = re.MULTILINE) -> None:
        self.pattern = re.compile(source, flags)  # raises re.error for the caller to report
        self.needs = _requirements(source, flags)

    def search(self, text: str) -> re.Match[str] | None:
        for alternatives in self.needs:
            for literal in alternatives:
                if literal in text:
                    break
            else:
                return None
        return self.pattern.search(text)

    def __repr__(self) -> str:
        return f"Matcher({self.pattern.pattern!r}, needs={self.needs!r})"


def _requirements(source: str, flags: int) -> tuple[Requirement, ...]:
    if _sre is None:
        return ()
    try:
        parsed = _sre.parse(source, flags)
        if parsed.state.flags & re.IGNORECASE:
            return ()
        return tuple(_sequence(list(parsed)))
    except Exception:  # an unexpected parse tree: no pre-check rather than a wrong one
        return ()


def _sequence(items: list) -> Iterable[Requirement]:
    """Requirements of items that follow each other: literal runs, groups, alternations."""
    run = ""
    for op, value in items:
        if op is LITERAL:
            run += chr(value)
            continue
        if _useful(run):
            yield (run,)
        run = ""
        if op is SUBPATTERN and not value[1] & re.IGNORECASE:  # (group, add_flags, del_flags, content)
            yield from _sequence(list(value[-1]))
        elif op is BRANCH:
            branch = _branch(value[1])
            if branch:
                yield branch
    if _useful(run):
        yield (run,)


def _branch(alternatives: list) -> Requirement | None:
    """One literal per alternative (its best), or nothing when an alternative has none."""
    found = []
    for alternative in alternatives:
        needs = [literal for requirement in _sequence(list(alternative)) if len(requirement) == 1
                 for literal in requirement]
        if not needs:
            return None
        found.append(max(needs, key=len))
    return tuple(found)


def _useful(run: str) -> bool:
    return bool(run.strip())  # a run of spaces is in every screen: testing it saves nothing
