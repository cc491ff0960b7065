"""Where a host listens and how a client reaches it.

On Linux and macOS: a Unix socket at the socket path (directory 0700, socket 0600). Where
Unix sockets are not available (Windows), or with `TIKI_IPC=tcp`: a loopback TCP port; the
socket path then names a 0600 file holding the port and a per-host secret that every request
must carry, so only the user who can read that file can talk to the host.

Imports only the standard library: the command line uses it on its fast path.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import stat
from pathlib import Path


class HostAlreadyRunning(RuntimeError):
    pass


def use_tcp() -> bool:
    return os.environ.get("TIKI_IPC") == "tcp" or not hasattr(socket, "AF_UNIX")


def connect(path: Path, timeout: float | None) -> tuple[socket.socket, str | None]:
    """A connected socket and the secret to send; FileNotFoundError/ConnectionRefusedError
    when no host answers there."""
    if use_tcp():
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
            port, auth = int(info["port"]), str(info["auth"])
        except (ValueError, KeyError, TypeError):
            raise ConnectionRefusedError(f"{path} is not a tikitaka endpoint file") from None
        conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        return conn, auth
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        raise
    return conn, None


def is_live(path: Path) -> bool:
    try:
        conn, _ = connect(path, 1.0)
    except OSError:
        return False
    conn.close()
    return True


def prepare(path: Path) -> None:
    """Create the 0700 directory and clear a stale endpoint; refuse when a host answers."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path.parent, 0o700)
    except PermissionError:
        pass  # a shared directory we do not own: the endpoint's own 0600 still holds
    if not (path.exists() or path.is_symlink()):
        return
    mode = os.lstat(path).st_mode
    if not use_tcp() and not stat.S_ISSOCK(mode):
        raise HostAlreadyRunning(f"{path} exists and is not a socket; remove it or set TIKI_SOCKET")
    if is_live(path):
        raise HostAlreadyRunning(
            f"a tiki host is already running on {path}; use it, stop it with `tiki shutdown`, "
            "or start another with a different TIKI_SOCKET"
        )
    path.unlink(missing_ok=True)  # a dead host left it behind


def listen(path: Path) -> tuple[socket.socket, str | None]:
    """A listening socket and the secret requests must carry (None for Unix sockets)."""
    prepare(path)
    old_umask = os.umask(0o177)  # born 0600: no window in which others could connect or read
    try:
        if use_tcp():
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            auth = secrets.token_urlsafe(24)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps({"port": listener.getsockname()[1], "auth": auth}), encoding="utf-8")
            os.replace(tmp, path)
        else:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(path))
            auth = None
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    listener.listen(64)
    return listener, auth
