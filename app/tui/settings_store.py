"""UI settings that persist between launches (panel position, theme): `ui.toml` in the
config directory, written atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import tomli_w

from ...protocol import paths, toml_file

DEFAULTS = {"panel": "right", "theme": "textual-dark"}
# Read when present: program_clipboard = "off" keeps a program's OSC 52 from the outer terminal.
PANELS = ("right", "bottom", "hidden")


def ui_file() -> Path:
    return paths.config_dir() / "ui.toml"


def load() -> dict[str, str]:
    try:
        data = toml_file.load(ui_file())
    except toml_file.TomlError:  # (a broken one: the defaults, and the next change rewrites it)
        data = {}
    settings = dict(DEFAULTS)
    if data.get("panel") in PANELS:
        settings["panel"] = data["panel"]
    if isinstance(data.get("theme"), str):
        settings["theme"] = data["theme"]
    if data.get("program_clipboard") in ("on", "off"):
        settings["program_clipboard"] = data["program_clipboard"]
    return settings


def save(settings: dict[str, str]) -> None:
    path = ui_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ui-", dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        tomli_w.dump(settings, handle)
    os.replace(tmp, path)
