"""The text of a workspace file after a save: the user's file with only the tabs that changed
changed (mixed into nothing; `workspace_file.save_workspace` calls `merged`).

A workspace is often a project's `tiki.toml`, written by hand and shared in git: comments,
`cwd = "~/src/app"`, a command on one line, the defaults left out. The file is edited in place
(tomlkit keeps everything it does not touch, comments included): a closed tab's table goes, a
renamed tab's `name` changes (the table found by its old name's program and directory), a field
that no longer holds is set, and a new tab is added as briefly as a person would write it --
`role` only where the command does not imply it, with the file's line ends (CRLF in a file that
has them). Tabs written as inline tables in an array (`tab = [{name = "a", ...}]`) stay so,
a tab added as one more (a comment inside the array stays unless the tabs change order). A
file that is not TOML any more, or whose `tab` is neither, is written afresh (the caller keeps
hand edits safe: a file changed on disk is never written over, see `WorkspaceFile`).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Array, InlineTable, Table


class Entry(Protocol):
    name: str
    command: list[str]
    cwd: str
    role: str


def command_argv(command: str | Sequence[Any]) -> list[str]:
    """A table's `command` as the words it runs: a list as it is; a string as a POSIX shell
    splits what is typed (`claude --resume`; quotes keep spaces: `"/opt/my tools/ai" -v`),
    with no expansion, so what runs is what the file says. On Windows the words are split
    the same way but a backslash stays a backslash (paths) and the quotes around a word go.
    A string with an unclosed quote raises ValueError."""
    if not isinstance(command, str):
        return [str(part) for part in command]
    if os.name != "nt":
        return shlex.split(command)
    return [word[1:-1] if len(word) > 1 and word[0] == word[-1] and word[0] in "\"'" else word
            for word in shlex.split(command, posix=False)]


@dataclass(frozen=True)
class Defaults:
    """What a table that leaves a field out means (as `load_workspace` reads it)."""

    shell: Callable[[], list[str]]  # the command
    role: Callable[[list[str]], str]  # the role, for a command
    cwd: Callable[[], str]  # the directory: the host's, which it read the file from


def merged(text: str | None, entries: Sequence[Entry], defaults: Defaults) -> str:
    """`text` (the file now; None when there is none) with its tabs made `entries`."""
    doc = _parse(text)
    tabs = doc.get("tab")
    # `tab = [{...}, ...]`, inline tables in an array, is kept so: tabs added are inline too
    inline = isinstance(tabs, Array) and all(isinstance(t, InlineTable) for t in tabs)
    if not inline and (not isinstance(tabs, AoT) or not all(isinstance(t, Table) for t in tabs)):
        doc.pop("tab", None)
        tabs = tomlkit.aot()
        doc.append("tab", tabs)
    tables: list[Any] = list(tabs)
    names = {entry.name for entry in entries}
    left = [table for table in tables if table.get("name") not in names]  # closed, or renamed
    by_name = {table.get("name"): table for table in tables}
    wanted: list[Any] = []
    for entry in entries:
        table = by_name.get(entry.name)
        if table is None:
            table = next((t for t in left if _means(t, defaults) == (entry.command, entry.cwd, entry.role)), None)
            if table is not None:  # renamed: the same program in the same place
                left.remove(table)
                table["name"] = entry.name
        if table is None:
            table = _new_table(entry, defaults, tomlkit.inline_table() if inline else tomlkit.table())
        else:
            _update(table, entry, defaults)
        wanted.append(table)
    old, gone = {id(t) for t in tables}, {id(t) for t in left}
    in_place = [t for t in tables if id(t) not in gone] + [t for t in wanted if id(t) not in old]
    if [id(t) for t in in_place] != [id(t) for t in wanted]:
        _reordered(doc, wanted, tabs)  # (tabs moved: the tables, comments and all, in the new order)
    else:
        for index in reversed([i for i, t in enumerate(tables) if id(t) in gone]):
            del tabs[index]
        for table in wanted:
            if id(table) not in old:
                if not inline and len(tabs) and not tabs[-1].as_string().endswith("\n\n"):
                    tabs[-1].add(tomlkit.nl())  # (a blank line between tables, as people write them)
                tabs.append(table)
    out = tomlkit.dumps(doc)
    if text and "\r\n" in text:  # (a file checked out on Windows: what is added ends its lines alike)
        out = out.replace("\r\n", "\n").replace("\n", "\r\n")
    return out


def _parse(text: str | None) -> Any:
    if not text:
        return tomlkit.document()
    try:
        return tomlkit.parse(text)
    except (TOMLKitError, ValueError, RecursionError):
        return tomlkit.document()


def _means(table: Table, defaults: Defaults) -> tuple[list[str], str, str]:
    """(command, directory, role) as the host reads the table (`load_workspace`)."""
    written = table.get("command") or defaults.shell()
    try:
        command = command_argv(written)
    except ValueError:  # an unclosed quote (edited since it was read): matches no tab, stays
        command = [str(written)]
    cwd = os.path.expanduser(str(table.get("cwd") or defaults.cwd()))
    return command, cwd, str(table.get("role") or defaults.role(command))


def _update(table: Table, entry: Entry, defaults: Defaults) -> None:
    """Set only what no longer holds, as briefly as a person would write it."""
    command, cwd, role = _means(table, defaults)
    if command != entry.command:
        table["command"] = entry.command
        command = entry.command
    if cwd != entry.cwd:
        table["cwd"] = entry.cwd
    if str(table.get("role") or defaults.role(command)) != entry.role:
        table["role"] = entry.role


def _new_table(entry: Entry, defaults: Defaults, table: Any) -> Any:
    table.add("name", entry.name)
    table.add("command", entry.command)
    if entry.cwd != defaults.cwd():
        table.add("cwd", entry.cwd)
    if entry.role != defaults.role(entry.command):
        table.add("role", entry.role)
    return table


def _reordered(doc: Any, tables: list[Any], old: Any) -> None:
    tabs = tomlkit.aot() if isinstance(old, AoT) else tomlkit.array().multiline(True)
    for table in tables:
        tabs.append(table)
    doc["tab"] = tabs
