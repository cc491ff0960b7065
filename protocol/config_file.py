"""Reading `config.toml` into `Settings` (`protocol.settings`, the models): the TOML, the old
spellings (read as before, with a notice), the models' own checks put in words that name the
setting, then the environment overrides. Pure: callers read the file (the host its own, and
the text each UI sends when it attaches).
"""

from __future__ import annotations

import contextvars
import os
import sys
from typing import Any, Mapping

from pydantic import BaseModel, ValidationError

from . import toml_file
from .settings import Settings


class SettingsError(ValueError):
    """The config file is not valid TOML or has a field of the wrong type; the message names it."""


def parse_settings(text: str, env: Mapping[str, str] | None = None, notes: list[str] | None = None) -> Settings:
    """Parse `config.toml` text and apply environment overrides. Notices about old spellings
    go to `notes` when given (a UI shows them), else to stderr (`notice`)."""
    token = _NOTES.set(notes)
    try:
        return _parse(text, env)
    finally:
        _NOTES.reset(token)


def _parse(text: str, env: Mapping[str, str] | None) -> Settings:
    try:
        data = toml_file.loads(text) if text.strip() else {}
    except toml_file.TomlError as exc:
        raise SettingsError(f"config.toml {exc}") from None
    data = _old_sections(data)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise SettingsError("config.toml: " + "; ".join(_explain(err) for err in exc.errors())) from None
    return apply_env(settings, os.environ if env is None else env)


def _old_sections(data: dict) -> dict:
    """Old spellings, still read with a one-line notice so no user's config breaks: `[reactor]`
    is the old name of `[coordinator]`, `think = true/false` of `reasoning = "on"/"off"`.
    `[ui]` was never read (the panel and the theme are what the UI saved in ui.toml): passed
    over, with a notice."""
    coordinator = data.get("coordinator", data.get("reactor"))
    if isinstance(coordinator, dict) and "think" in coordinator:
        coordinator = dict(coordinator)
        think = coordinator.pop("think")
        coordinator.setdefault("reasoning", "on" if think else "off")
        data = {**data, ("coordinator" if "coordinator" in data else "reactor"): coordinator}
        notice('config.toml: `think = ...` is now `reasoning = "on" | "off" | "auto"` (read as before for now)')
    if "ui" in data:
        data = {key: value for key, value in data.items() if key != "ui"}
        notice("config.toml: [ui] is not read: the agent panel's place and the theme are kept in ui.toml as "
               "you last set them in the UI (the prefix then z docks the panel; the command palette picks a "
               "theme); remove the section")
    if "reactor" not in data:
        return data
    data = dict(data)
    old = data.pop("reactor")
    if "coordinator" in data:
        raise SettingsError("config.toml has both [reactor] and [coordinator]: [reactor] is the old name; "
                            "move its settings into [coordinator]")
    data["coordinator"] = old
    notice("config.toml: [reactor] is now called [coordinator]; rename the section (read as before for now)")
    return data


_noticed: set[str] = set()
_NOTES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("settings_notes", default=None)


def notice(text: str) -> None:
    """A one-line notice on stderr, once per process (a `tiki serve` log, `tiki doctor`), or
    into the notes `parse_settings` was given."""
    notes = _NOTES.get()
    if notes is not None:
        if text not in notes:
            notes.append(text)
        return
    if text not in _noticed:
        _noticed.add(text)
        print(f"tiki: {text}", file=sys.stderr)


def _explain(err: Mapping[str, Any]) -> str:
    where = ".".join(str(p) for p in err["loc"])
    if err["type"] == "extra_forbidden":
        section: type[BaseModel] = Settings
        for part in err["loc"][:-1]:
            section = section.model_fields[str(part)].annotation  # type: ignore[assignment]
        known = ", ".join(section.model_fields)
        return f"unknown setting '{where}' (known here: {known})"
    return f"{where}: {err['msg'].removeprefix('Value error, ')}"  # (pydantic's words for our own checks)


BACKENDS = ("auto", "ollama", "embedded", "openai")


def apply_env(settings: Settings, env: Mapping[str, str]) -> Settings:
    coordinator = settings.coordinator
    updates: dict[str, object] = {}
    backend = env.get("TIKI_BACKEND")
    if backend:
        if backend not in BACKENDS:
            raise SettingsError(f"TIKI_BACKEND={backend!r} is not a backend; use one of: {', '.join(BACKENDS)}")
        updates["backend"] = backend
    if env.get("TIKI_MODEL"):
        updates["model"] = env["TIKI_MODEL"]
    if env.get("OLLAMA_HOST"):
        updates["ollama_host"] = env["OLLAMA_HOST"]
    if env.get("TIKI_BASE_URL"):
        updates["base_url"] = env["TIKI_BASE_URL"]
    if updates:
        settings = settings.model_copy(update={"coordinator": coordinator.model_copy(update=updates)})
    return settings
