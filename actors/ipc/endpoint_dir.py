"""The directory a host's endpoint lives in, safe on a machine shared with others.

Another local user must not be able to stand in the middle: the directory is refused (by the
host and by the CLI) when someone else owns it or can write into it without the sticky bit;
tikitaka's own per-user runtime directory (not one the user chose with TIKI_SOCKET) must be
ours alone, and so must its parent; an endpoint owned by someone else is never used; and a
directory tikitaka did not create is never chmodded. Standard library only: the command line
uses it on its fast path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ...protocol import paths
from .endpoint_errors import EndpointError, Unreachable

UID = os.getuid() if hasattr(os, "getuid") else None  # None: Windows, no ownership checks


def _managed(path: Path) -> bool:
    """Is `path` in tikitaka's own per-user runtime directory (not one the user chose)?"""
    return not os.environ.get("TIKI_SOCKET") and path.parent == paths.runtime_dir()


def _unsafe(directory: Path, managed: bool) -> str | None:
    """Why `directory` is not safe for a host's endpoint, or None."""
    try:
        st = os.lstat(directory)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        if managed:
            return "a symlink"
        st = os.stat(directory)
    if not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    mode = stat.S_IMODE(st.st_mode)
    if UID is None:
        return None
    if st.st_uid != UID and (managed or st.st_uid != 0):
        return f"owned by uid {st.st_uid}, not you (uid {UID})"
    if managed and mode & 0o022:  # ours alone: we create it 0700
        return f"writable by {'others' if mode & 0o002 else 'its group'} (mode {mode:04o})"
    if mode & 0o022 and not mode & stat.S_ISVTX:  # /tmp (sticky) is fine: nobody can replace our file
        return f"writable by others without the sticky bit (mode {mode:04o})"
    return None


def check_directory(path: Path) -> None:
    """Refuse an endpoint whose directory another user could tamper with."""
    managed = _managed(path)
    for directory in (path.parent, path.parent.parent) if managed else (path.parent,):
        try:
            problem = _unsafe(directory, managed and directory == path.parent)
        except PermissionError:
            raise Unreachable(f"permission denied reaching {path}: it is in another user's directory; set "
                              "TIKI_SOCKET to your own host's socket") from None
        if problem:
            fix = (f"remove it if it is not yours (`rm -r {directory}`), or set TIKI_SOCKET to a path in a "
                   "directory only you can write" if managed else
                   "set TIKI_SOCKET to a path in a directory only you can write")
            raise Unreachable(f"refusing {directory} for the tiki socket: it is {problem}, so another user "
                              f"could intercept your host; {fix}")


def check_owner(path: Path, st: os.stat_result) -> None:
    """Refuse an endpoint that belongs to another user."""
    if UID is not None and st.st_uid != UID:
        raise Unreachable(f"{path} belongs to uid {st.st_uid}, not you (uid {UID}): no permission to use "
                          "another user's host; set TIKI_SOCKET to your own host's socket")


def secure_directory(path: Path) -> None:
    """Create the endpoint's directory 0700, or check the one that is there; chmod only what
    we created."""
    directory = path.parent
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(directory, 0o700)
        os.chmod(directory, 0o700)  # ours: make sure the umask did not loosen it
    except FileExistsError:
        pass
    except OSError as exc:
        raise EndpointError(f"cannot create {directory} for the tiki socket: {exc.strerror}; set "
                            "TIKI_SOCKET to a path in a directory you own") from None
    try:
        check_directory(path)
    except Unreachable as exc:
        raise EndpointError(str(exc)) from None
