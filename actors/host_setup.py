"""What a host starts from: its settings (config.toml), which workspace it serves and what to
tell the user about that choice, and where this installation's `tiki` is (every tab's PATH
gets it). `HostError` is what a host that cannot start raises; the message says why."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

from ..protocol import paths, toml_file
from ..protocol.config_file import SettingsError, parse_settings
from ..protocol.settings import Settings
from . import host_record
from .tabs.workspace_file import TabEntry, default_shell, load_workspace


class HostError(RuntimeError):
    """The host cannot start (bad config or workspace, socket in use); the message says why."""


def load_settings() -> Settings:
    path = paths.settings_file()
    try:
        text = toml_file.read(path) if path.exists() else ""
    except toml_file.TomlError as exc:
        raise HostError(f"{path} {exc}") from None
    try:
        return parse_settings(text)
    except SettingsError as exc:
        raise HostError(paths.at_settings_file(str(exc))) from None


def resolve_workspace(explicit: Path | None, predecessor: host_record.Predecessor | None = None,
                      socket: Path | None = None) -> tuple[list[TabEntry], Path, str | None]:
    """The tabs to start, the file that tab changes are saved to, and what to tell the user
    about it: `--workspace`, else the one a host that did not stop served on this socket
    (`predecessor`), else ./tiki.toml, else the default workspace."""
    said = None
    if explicit is None and predecessor is not None:
        before = f"the last host on {socket} (pid {predecessor.pid}) did not shut down (killed or crashed)"
        if predecessor.workspace.is_file():
            try:
                entries = load_workspace(predecessor.workspace)
            except Exception as exc:  # WorkspaceFileError carries the message
                raise HostError(f"{exc}; it is the workspace {before}: fix it, or start another with "
                                "`--workspace FILE`") from None
            return entries, predecessor.workspace, f"restored {predecessor.workspace}: {before}"
        said = (f"{before}; the workspace it served, {predecessor.workspace}, no longer exists, so this one "
                "starts as usual")
    entries, path = _usual_workspace(explicit)
    if said and predecessor is not None and path == predecessor.workspace:  # never saved (a first launch's)
        said = None
    return entries, path, said


def refuse_shared(workspace: Path, socket: Path) -> None:
    """HostError when a host on another socket serves `workspace`: each would save its own tabs
    over the other's (and the host after a crash would bring back the other's)."""
    other = host_record.serving(workspace, besides=socket)
    if other is not None:
        raise HostError(f"the workspace {workspace} is already served by the tiki host on {other.socket} (pid "
                        f"{other.pid}); attach to it with `TIKI_SOCKET={other.socket} tiki`, or give this host "
                        "another workspace (`--workspace FILE`)")


def _usual_workspace(explicit: Path | None) -> tuple[list[TabEntry], Path]:
    if explicit is not None:
        if not explicit.is_file():
            raise HostError(f"workspace file not found: {explicit}")
        path = explicit
    elif Path("tiki.toml").is_file():
        path = Path("tiki.toml").resolve()
    else:
        path = paths.default_workspace()
        if not path.is_file():
            return [TabEntry("shell", default_shell(), os.getcwd(), "shell")], path
    try:
        return load_workspace(path), path
    except Exception as exc:  # WorkspaceFileError carries the message
        raise HostError(str(exc)) from None


def host_bin_dir() -> str | None:
    """The directory holding this installation's `tiki`, put on every tab's PATH."""
    for candidate in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        if (candidate / "tiki").exists() or (candidate / "tiki.exe").exists():
            return str(candidate)
    return None
