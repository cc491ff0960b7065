"""Reading and writing a workspace TOML: the tabs a host starts with.

    [[tab]]
    name = "Claude"
    command = ["claude"]     # or as typed in a shell: "claude --resume"
    cwd = "~/src/project"
    role = "peer"          # or "shell"; default: peer for known AI CLIs, else shell

Saving is atomic (write a temporary file, then rename), so a crash never leaves half a file,
and changes only the tabs that changed: the rest of the file stays as the user wrote it,
comments and all (`workspace_toml`). The host never overwrites a hand edit: a file that changed
on disk since the host last read or wrote it stays as the user left it, and the host's tabs go
beside it (`WorkspaceFile`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...protocol import toml_file
from ...terminals.agent_state_kind import runs_ai_cli
from ..errors import TikiError
from .workspace_toml import Defaults, command_argv, merged

# A host at its descriptor limit: a save waits this long, in short steps, for descriptors that
# are being given back (a tab just closed frees its PTY's a moment after the save starts).
OUT_OF_FILES_WAIT = 0.5


def default_role(command: list[str]) -> str:
    """An AI CLI's tab is a peer, also under a wrapper (`env HOME=x claude`, `npx codex`)."""
    return "peer" if runs_ai_cli(command) else "shell"


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


class WorkspaceNotSaved(WorkspaceFileError):
    """The change was made (and stands) but could not be saved: the caller must hear it."""


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
            line = command
            try:
                command = command_argv(line)
            except ValueError as exc:  # shlex: "No closing quotation"
                words = json.dumps(line.split()[:2])[:-1]
                raise WorkspaceFileError(
                    f"{where}: 'command' {line!r}: {str(exc).lower()}; close the quote, or write "
                    f"the words as a list: command = {words}, ...]") from None
        if not isinstance(command, list) or not command or not all(isinstance(part, str) for part in command):
            raise WorkspaceFileError(
                f"{where}: 'command' must be a list of strings (argv), e.g. [\"claude\", \"--resume\"], "
                "or one string as typed in a shell")
        cwd = raw.get("cwd") or os.getcwd()
        if not isinstance(cwd, str):
            raise WorkspaceFileError(f"{where}: 'cwd' must be a string")
        role = raw.get("role") or default_role(command)
        if role not in ("peer", "shell"):
            raise WorkspaceFileError(f"{where}: 'role' must be \"peer\" or \"shell\", not {role!r}")
        entries.append(TabEntry(raw["name"], command, os.path.expanduser(cwd), role))
    return entries


def _host_dir() -> str:
    """The directory a table without `cwd` means (the host's: it never changes directory);
    "" once it was deleted, which no tab's directory is: every `cwd` is then written out."""
    try:
        return os.getcwd()
    except FileNotFoundError:
        return ""


# What `load_workspace` reads a table without a command, role or cwd as.
_DEFAULTS = Defaults(shell=default_shell, role=default_role, cwd=_host_dir)


def save_workspace(path: Path, entries: list[TabEntry], held: bytes | None = None) -> str:
    """Write `entries` to `path` atomically, changing only the tabs that changed in what it
    holds (`held`, when the caller has just read it; else read here); returns the digest of
    what was written."""
    held = _read(path) if held is None else held
    try:
        before = held.decode("utf-8") if held is not None else None
    except UnicodeDecodeError:
        before = None  # (not text: written afresh)
    text = merged(before, entries, _DEFAULTS).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".workspace-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return hashlib.sha256(text).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def file_digest(path: Path, held: bytes | None = None) -> str | None:
    """The digest of the file's bytes (`held`, when just read); None when there is no file."""
    held = _read(path) if held is None else held
    return None if held is None else hashlib.sha256(held).hexdigest()


class WorkspaceFile:
    """The workspace file a host saves to, and what it held when the host last read or wrote it.

    A file changed on disk since then (the user edited it while the host ran) is left as it is:
    the host's tabs are written beside it, to NAME.host.toml, and `save` says so once per edit.
    When the user copies that file over theirs, the host saves to the file as before. A file
    that was deleted is simply written again: nothing of the user's is lost by that."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.beside = path.with_name(path.stem + ".host.toml")
        self._known = file_digest(path)  # the host reads it just before: what it started from
        self._beside_known: str | None = None
        self._noted: str | None = None

    def save(self, entries: list[TabEntry]) -> str | None:
        """Save `entries` (OSError when that fails); returns None, or the news that they went
        beside a file the user edited."""
        held = _read(self.path)  # (read once: what is judged an edit is what is merged into)
        current = file_digest(self.path, held)
        if current is None or current in (self._known, self._beside_known):
            self._known = save_workspace(self.path, entries, held)
            self._beside_known = self._noted = None
            return None
        self._beside_known = save_workspace(self.beside, entries)
        if current == self._noted:
            return None
        self._noted = current
        return (f"{self.path} was edited while the host ran: it is left as edited, and the host's tabs "
                f"are saved to {self.beside} (copy that over it, or merge the two, to keep them)")

    def _save_waiting_for_files(self, entries: list[TabEntry]) -> str | None:
        deadline = time.monotonic() + OUT_OF_FILES_WAIT
        while True:
            try:
                return self.save(entries)
            except OSError as exc:
                if exc.errno not in (errno.EMFILE, errno.ENFILE) or time.monotonic() >= deadline:
                    raise
            time.sleep(0.02)

    def save_reported(self, entries: list[TabEntry], log: Any, supervisor: Any) -> str | None:
        """`save`, and what came of it told: on the event log (`log`) and, as a failure of the
        `workspace-file` service, in the health report (`supervisor`). Returns the error when
        the save failed, for the caller, who must not think the change will last."""
        try:
            news = self._save_waiting_for_files(entries)
        except OSError as exc:
            why = f"{self.path}: {exc.strerror or exc}"
            log.append("workspace_save_failed", detail=why)
            problem = f"the workspace was not saved ({why}): this change is lost at the next launch " \
                      "unless a later save succeeds"
            supervisor.report("workspace-file", WorkspaceNotSaved(problem))
            return problem
        if news:  # saved beside a file the user edited: they must hear it, but nothing failed
            log.append("workspace_conflict", detail=news)
            supervisor.report("workspace-file", WorkspaceNotSaved(news))
        return None
