"""Where tikitaka keeps things, in one place (computed only; callers create directories, but
for the state directory, which `ready_state_dir` makes or explains).

- config: `$XDG_CONFIG_HOME/tikitaka` (settings, the default workspace `workspace.toml`)
- state: `$XDG_STATE_HOME/tikitaka` (event log, the background host's log, transcripts, what each
  running host serves; a host on another socket than the default has its own logs: `host_tag`)
- runtime: `$XDG_RUNTIME_DIR/tikitaka` or a per-user temp directory (the host's socket)

`TIKI_CONFIG_DIR`, `TIKI_STATE_DIR` and `TIKI_SOCKET` override them (tests use these); a
relative one is made absolute here, against the directory it was set in: the host hands these
paths to programs in tabs that run in other directories.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

APP = "tikitaka"


# platformdirs and tempfile are imported only when needed: the CLI's fast path (which only
# wants the socket) should not pay for them.


def _absolute(override: str) -> Path:
    try:
        return Path(os.path.abspath(os.path.expanduser(override)))
    except FileNotFoundError:  # relative, in a directory that was deleted: nothing better to say
        return Path(override)


def config_dir() -> Path:
    override = os.environ.get("TIKI_CONFIG_DIR")
    if override:
        return _absolute(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def state_dir() -> Path:
    override = os.environ.get("TIKI_STATE_DIR")
    if override:
        return _absolute(override)
    import platformdirs

    return Path(platformdirs.user_state_dir(APP, appauthor=False))


def runtime_dir() -> Path:
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isdir(xdg):
        return Path(xdg) / APP
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    tmp = os.environ.get("TMPDIR")
    if not tmp:
        import tempfile

        tmp = tempfile.gettempdir()
    return Path(tmp) / f"{APP}-{uid}"


def socket_path() -> Path:
    override = os.environ.get("TIKI_SOCKET")
    return _absolute(override) if override else runtime_dir() / "tiki.sock"


def default_workspace() -> Path:
    return config_dir() / "workspace.toml"


def settings_file() -> Path:
    return config_dir() / "config.toml"


def at_settings_file(message: str) -> str:
    """A fault found in config.toml (`config_file.SettingsError`, which names it so), naming the
    file by its whole path."""
    name = "config.toml"
    return str(settings_file()) + message[len(name):] if message.startswith(name) else message


class StateDirError(Exception):
    """The state directory cannot be made or written; the message names it and the fix."""


def ready_state_dir() -> Path:
    """The state directory, made if missing and known to be writable, or StateDirError."""
    path = state_dir()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)  # (private, as XDG asks of a state dir)
        if not os.access(path, os.W_OK | os.X_OK):
            raise PermissionError(13, "not writable")
    except OSError as exc:
        raise StateDirError(f"the state directory {path} cannot be used ({exc.strerror or exc}); it keeps the "
                            "host's log, the event log and the transcripts: set TIKI_STATE_DIR to a writable "
                            "directory") from None
    return path


def file_word(text: str, otherwise: str) -> str:
    """`text` made fit for a file name (runs of anything but letters, digits, `.`, `_` and `-`
    become one `-`; at most 32 characters), or `otherwise` when nothing of it is left."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:32] or otherwise


def host_tag(socket: Path) -> str:
    """What the names of one host's own files in the state directory carry: nothing for the
    default socket; else the socket's name and a digest of its path (`-work-3fa2c1`). Hosts on
    two sockets (two workspaces at once) share the state directory but not their logs."""
    if socket.absolute() == (runtime_dir() / "tiki.sock").absolute():
        return ""
    return f"-{file_word(socket.stem, 'socket')}-{hashlib.sha256(os.fsencode(socket.absolute())).hexdigest()[:6]}"


def event_log_file(socket: Path | None = None) -> Path:
    """The event log of the host on `socket` (the one in use by default)."""
    return state_dir() / event_log_name(socket or socket_path())


def event_log_name(socket: Path) -> str:
    return f"events{host_tag(socket)}.jsonl"


def host_log_file(socket: Path | None = None) -> Path:
    """What a host started in the background by `tiki` printed (the one on `socket`)."""
    return state_dir() / host_log_name(socket or socket_path())


def host_log_name(socket: Path) -> str:
    return f"host{host_tag(socket)}.log"


def transcripts_dir() -> Path:
    return state_dir() / "transcripts"


def host_record(socket: Path) -> Path:
    """Where the host on `socket` notes what it serves while it runs (actors/host_record):
    keyed by the socket, since each socket has its own host."""
    digest = hashlib.sha256(os.fsencode(socket.absolute())).hexdigest()[:16]
    return state_dir() / "hosts" / f"{digest}.json"
