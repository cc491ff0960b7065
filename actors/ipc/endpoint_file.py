"""The TCP endpoint file: where a host started with TIKI_IPC=tcp (or on Windows) says which
loopback port it listens on and the secret a client sends first. A 0600 JSON file at the
socket path, `{"port": ..., "auth": ...}`; written through a fresh `.tmp` so a planted file or
symlink is never written through; read without following links. Standard library only (the
command line reads it on its fast path)."""

from __future__ import annotations

import json
import os
from pathlib import Path

MAX_SIZE = 4096  # an endpoint file is ~60 bytes; anything much larger is not one


class NotAnEndpointFile(ValueError):
    """The file at the socket path is not a tikitaka endpoint file."""


def read(path: Path) -> tuple[int, str]:
    """(port, secret) from the endpoint file at `path`; NotAnEndpointFile for anything else
    (OSError when it cannot be opened)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_SIZE + 1)
    try:
        info = json.loads(data.decode("utf-8")) if len(data) <= MAX_SIZE else None
    except ValueError:
        info = None
    if not isinstance(info, dict) or set(info) != {"port", "auth"}:
        raise NotAnEndpointFile(str(path))
    port, auth = info["port"], info["auth"]
    if not (isinstance(port, int) and 0 < port < 65536 and isinstance(auth, str)):
        raise NotAnEndpointFile(str(path))
    return port, auth


def write(path: Path, port: int, auth: str) -> None:
    """Write the endpoint file through a fresh .tmp file: O_EXCL|O_NOFOLLOW, so a file or
    symlink planted there is never written through (a stale one is removed, not followed).
    OSError / FileExistsError are the caller's to explain."""
    tmp = path.with_name(path.name + ".tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(tmp, flags, 0o600)
    except FileExistsError:
        os.unlink(tmp)  # removes a planted link itself, never its target
        fd = os.open(tmp, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"port": port, "auth": auth}))
    os.replace(tmp, path)
