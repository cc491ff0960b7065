"""Reading the TOML files people write for us (config.toml, a workspace, agent-state rules,
ui.toml) with one set of faults, each a clause to follow the file's name: it cannot be read,
it is not UTF-8 text, it is not TOML, or it nests deeper than the reader goes (tomllib reads
nested arrays and tables recursively: a hostile file must not crash whoever reads it)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class TomlError(ValueError):
    """What is wrong with the file, as a clause: "is not valid TOML: ..." (the caller names it)."""


def loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(f"is not valid TOML: {exc}") from None
    except RecursionError:
        raise TomlError("is not valid TOML for us: its arrays or tables nest too deeply") from None


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TomlError(f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise TomlError(f"is not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def load(path: Path) -> dict[str, Any]:
    return loads(read(path))
