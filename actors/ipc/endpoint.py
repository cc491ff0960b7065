"""Where a host listens and how a client reaches it, safely on a machine shared with others.

On Linux and macOS: a Unix socket at the socket path (directory 0700, socket 0600). Where
Unix sockets are not available (Windows), or with `TIKI_IPC=tcp`: a loopback TCP port; the
socket path then names a 0600 file holding the port and a per-host secret that a client sends
first (`AUTH <secret>`, see protocol/ipc.py), so only the user who can read that file can talk
to the host.

Another local user must not be able to stand in the middle: the directory is checked first
(`endpoint_dir`), endpoint files are created with O_EXCL|O_NOFOLLOW (a planted symlink is never
written through), and an endpoint owned by someone else is never used.

Every failure is an `EndpointError` (`endpoint_errors`) whose message says what is wrong and
what to do.
Imports only the standard library: the command line uses it on its fast path.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import sys
from pathlib import Path

from ...protocol import ipc
from . import endpoint_file
from .endpoint_dir import UID, check_directory, check_owner, secure_directory
from .endpoint_errors import EndpointError, HostAlreadyRunning, NoEndpoint, QueueFull, Unreachable

# sizeof(sockaddr_un.sun_path) minus the terminating NUL
MAX_UNIX_PATH = 103 if sys.platform == "darwin" or "bsd" in sys.platform else 107
BACKLOG = 512  # a burst of clients waits in the kernel's queue instead of failing
CONNECT_TIMEOUT = 5.0


def use_tcp() -> bool:
    return os.environ.get("TIKI_IPC") == "tcp" or not hasattr(socket, "AF_UNIX")


def _no_host(path: Path, kind: type[Unreachable] = Unreachable) -> Unreachable:
    return kind(f"no tiki host is running at {path}; start one with `tiki` (the TUI) or `tiki serve`")


def _too_long(path: Path) -> str | None:
    size = len(os.fsencode(str(path)))
    if size <= MAX_UNIX_PATH:
        return None
    return (f"the socket path {path} is {size} bytes, longer than the {MAX_UNIX_PATH} bytes a Unix socket "
            "path may have; set TIKI_SOCKET to a shorter path (e.g. /tmp/tiki-$USER/s)")


def connect(path: Path, timeout: float | None = CONNECT_TIMEOUT) -> socket.socket:
    """A socket connected to the host at `path` (past the TCP secret line), or Unreachable."""
    check_directory(path)
    too_long = None if use_tcp() else _too_long(path)
    if too_long:
        raise Unreachable(too_long)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise _no_host(path, NoEndpoint) from None
    except PermissionError:
        raise Unreachable(f"permission denied reaching {path}: it belongs to another user; set TIKI_SOCKET "
                          "to your own host's socket") from None
    check_owner(path, st)
    if use_tcp():
        return _connect_tcp(path, st, timeout)
    if stat.S_ISREG(st.st_mode):
        raise Unreachable(f"{path} is a TCP endpoint file (its host was started with TIKI_IPC=tcp): set "
                          "TIKI_IPC=tcp to reach it")
    if not stat.S_ISSOCK(st.st_mode):
        raise Unreachable(f"{path} is not a tiki socket; set TIKI_SOCKET to your host's socket")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(str(path))
    except BaseException as exc:
        conn.close()
        if isinstance(exc, BlockingIOError) or getattr(exc, "errno", None) == errno.EAGAIN:
            raise QueueFull(f"the host at {path} is not accepting connections (its queue is full: it is "
                            "frozen or swamped); try again, or stop it and start a new one with `tiki serve`") from None
        if isinstance(exc, ConnectionRefusedError):
            raise _no_host(path) from None
        if isinstance(exc, PermissionError):
            raise Unreachable(f"permission denied connecting to {path}: it is another user's socket; set "
                              "TIKI_SOCKET to your own host's socket") from None
        if isinstance(exc, socket.timeout):
            raise QueueFull(f"the host at {path} did not accept the connection within {timeout:g} s (frozen "
                            "or swamped); try again, or restart it") from None
        if isinstance(exc, OSError):
            raise Unreachable(f"cannot reach the host at {path}: {exc.strerror or exc}") from None
        raise
    return conn


def _connect_tcp(path: Path, st: os.stat_result, timeout: float | None) -> socket.socket:
    if stat.S_ISSOCK(st.st_mode):
        raise Unreachable(f"{path} is a Unix socket, but TIKI_IPC=tcp asks for a TCP endpoint file: unset "
                          "TIKI_IPC to reach the host there")
    try:
        port, auth = endpoint_file.read(path)
    except (OSError, ValueError):
        raise Unreachable(f"{path} is not a tikitaka endpoint file; set TIKI_SOCKET to your host's "
                          "endpoint (or unset TIKI_IPC for a Unix socket host)") from None
    try:
        conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except ConnectionRefusedError:
        raise _no_host(path) from None
    except socket.timeout:
        raise QueueFull(f"the host on port {port} did not accept the connection within {timeout:g} s; "
                        "try again, or restart it") from None
    except OSError as exc:
        raise Unreachable(f"cannot reach the host on port {port} ({path}): {exc.strerror or exc}") from None
    try:
        conn.sendall(ipc.auth_line(auth))
    except OSError:
        conn.close()
        raise _no_host(path) from None
    return conn


def is_live(path: Path) -> bool:
    try:
        conn = connect(path, 1.0)
    except QueueFull:
        return True  # a frozen host still owns its socket
    except (EndpointError, OSError):
        return False
    conn.close()
    return True


def make_directory(path: Path) -> None:
    """The endpoint's directory, made 0700 or checked safe; EndpointError when it cannot be used."""
    if not use_tcp() and _too_long(path):  # (before the directory is made: nothing left behind)
        raise EndpointError(_too_long(path))
    secure_directory(path)


def prepare(path: Path) -> None:
    """Make the directory safe and clear a stale endpoint; refuse when a host answers there
    or the endpoint is not ours."""
    make_directory(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise EndpointError(f"{path} is a symlink; a tiki endpoint is never followed through a link: remove "
                            f"it (`rm {path}`) or set TIKI_SOCKET elsewhere")
    if UID is not None and st.st_uid != UID:
        raise EndpointError(f"{path} belongs to uid {st.st_uid}, not you; remove it or set TIKI_SOCKET elsewhere")
    expected = stat.S_ISREG(st.st_mode) if use_tcp() else stat.S_ISSOCK(st.st_mode)
    if not expected:
        raise HostAlreadyRunning(f"{path} exists and is not a tiki endpoint; remove it or set TIKI_SOCKET")
    if use_tcp():  # a regular file is removed below only if it is one of ours (not a user's notes)
        try:
            endpoint_file.read(path)
        except (OSError, ValueError):
            raise HostAlreadyRunning(f"{path} exists and is not a tikitaka endpoint file; set TIKI_SOCKET to "
                                     "another path (or remove that file if it is yours to lose)") from None
    if is_live(path):
        raise HostAlreadyRunning(
            f"a tiki host is already running on {path}; use it, stop it with `tiki shutdown`, "
            "or start another with a different TIKI_SOCKET"
        )
    path.unlink(missing_ok=True)  # a dead host left it behind


def identity(path: Path) -> tuple[int, int, int] | None:
    """Which file the endpoint at `path` is now (device, inode, change time in ns: a freed inode
    number is soon given to the next file, the next host's socket), or None when there is none."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def release(path: Path, mine: tuple[int, int, int] | None) -> None:
    """Remove the endpoint this host made -- only if it is still that file: a host that takes
    its time stopping (a tab that ignores SIGTERM) must not delete the socket of the host
    started after it on the same path."""
    if mine is not None and identity(path) == mine:
        path.unlink(missing_ok=True)


def listen(path: Path) -> tuple[socket.socket, str | None]:
    """A listening socket and the secret clients must send first (None for Unix sockets)."""
    prepare(path)
    old_umask = os.umask(0o177)  # born 0600: no window in which others could connect or read
    try:
        if use_tcp():
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            import secrets  # (here: the command line, on its fast path, never makes one)

            auth = secrets.token_urlsafe(24)
            try:
                endpoint_file.write(path, listener.getsockname()[1], auth)
            except OSError as exc:
                listener.close()
                raise EndpointError(f"cannot write the endpoint file {path} ({exc.strerror or exc}); remove "
                                    f"{path}.tmp if it is left over, or set TIKI_SOCKET elsewhere") from None
        else:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                listener.bind(str(path))
            except OSError as exc:
                listener.close()
                raise EndpointError(f"cannot listen on {path}: {exc.strerror or exc}; set TIKI_SOCKET to a "
                                    "path in a directory you own") from None
            auth = None
    finally:
        os.umask(old_umask)
    listener.listen(BACKLOG)
    return listener, auth
