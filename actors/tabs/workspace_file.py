"""Reading and writing a workspace TOML: the tabs a host starts with.

    [[tab]]
    name = "Claude"
    command = ["claude"]
    cwd = "~/src/project"
    role = "peer"          # or "shell"; default: peer for known AI CLIs, else shell

Saving is atomic (write a temporary file, then rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from ...protocol import toml_file
from ..errors import TikiError

# Commands that are AI CLIs: their tabs are peers (they get the handshake, need no consent).
KNOWN_AI_CLIS = frozenset(
    {"claude", "codex", "gemini", "aider", "opencode", "qwen", "goose", "amp", "cursor-agent", "copilot"}
)


def default_role(command: list[str]) -> str:
    program = os.path.basename(command[0]) if command else ""
    program = program.removesuffix(".exe").removesuffix(".cmd")
    return "peer" if program.lower() in KNOWN_AI_CLIS else "shell"


def default_shell() -> list[str]:
    if sys.platform == "win32":
        return [os.environ.get("COMSPEC", "cmd.exe")]
    return [os.environ.get("SHELL") or "/bin/sh"]


@dataclass
class TabEntry:
    name: str
    command: list[str]
    cwd: str
    role: str


class WorkspaceFileError(TikiError):
    pass


def load_workspace(path: Path) -> list[TabEntry]:
    try:
        data = toml_file.load(path)
    except toml_file.TomlError as exc:
        raise WorkspaceFileError(f"workspace {path} {exc}") from None
    tabs = data.get("tab", [])
    if not isinstance(tabs, list):
        raise WorkspaceFileError(f"workspace {path}: 'tab' must be an array of tables ([[tab]])")
    entries = []
    for index, raw in enumerate(tabs, start=1):
        where = f"workspace {path}, tab #{index}"
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise WorkspaceFileError(f"{where}: needs a string 'name'")
        command = raw.get("command") or default_shell()
        if isinstance(command, str):
            command = [command]
        if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
            raise WorkspaceFileError(f"{where}: 'command' must be a list of strings (argv)")
        cwd = raw.get("cwd") or os.getcwd()
        if not isinstance(cwd, str):
            raise WorkspaceFileError(f"{where}: 'cwd' must be a string")
        role = raw.get("role") or default_role(command)
        if role not in ("peer", "shell"):
            raise WorkspaceFileError(f"{where}: 'role' must be \"peer\" or \"shell\", not {role!r}")
        entries.append(TabEntry(raw["name"], command, os.path.expanduser(cwd), role))
    return entries


def save_workspace(path: Path, entries: list[TabEntry]) -> None:
    data = {"tab": [{"name": e.name, "command": e.command, "cwd": e.cwd, "role": e.role} for e in entries]}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".workspace-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            tomli_w.dump(data, handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
