"""Hosts starting on one endpoint path take turns.

Two `tiki` started at the same moment (two terminals opened by a session restore, a script)
each start a background host. Each used to find no host there, start the workspace's tabs (a
restored agent session ran twice over), and only then, binding its socket, find it taken and
end its tabs again; and a host could find the other's socket bound but not yet listening,
take it for a dead host's leftover and remove it, leaving two hosts, one out of reach. Now a
starting host holds an exclusive lock on `<endpoint>.lock` from its first look at the path
until its socket listens (tmux's server takes a lock file the same way); the next one waits
for it, then finds a host there and refuses. The kernel drops the lock of a host that dies
meanwhile. The file stays, empty but for the holder's pid: removing a lock file others may
be waiting on would let two hold "the" lock at once.
"""

from __future__ import annotations

import errno
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...protocol import paths
from .endpoint_errors import EndpointError

# The holder starts the workspace's tabs meanwhile (Host allows that a minute), then listens.
CLAIM_WAIT = 90.0
_POLL = 0.05

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _try_lock(fd: int) -> bool:
    """Take the lock without waiting: False when another process holds it."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK, errno.EDEADLK):
            return False
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
            return True  # a file system without locks (some network mounts): start without turns, as before
        raise
    return True


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip() if hasattr(os, "pread") else ""
    except OSError:
        text = ""
    return f" (pid {text})" if text.isdigit() else ""


def _open(lock: Path) -> int:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(lock, flags, 0o600)  # (never through a planted symlink; the directory was checked)
    except OSError as exc:
        why = "it is a symlink, never followed" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise EndpointError(f"cannot open {lock}, the file hosts starting on that socket take turns with "
                            f"({why}); remove it if it is not yours (`rm {lock}`), or set TIKI_SOCKET "
                            "elsewhere") from None
    if hasattr(os, "getuid") and os.fstat(fd).st_uid != os.getuid():
        os.close(fd)
        raise EndpointError(f"{lock} belongs to another user, who could keep every host from starting; "
                            f"remove it (`rm {lock}`) or set TIKI_SOCKET to a path in a directory only you can write")
    return fd


@contextmanager
def claimed(path: Path, wait: float = CLAIM_WAIT) -> Iterator[None]:
    """Hold the turn for starting a host on `path` (its directory must exist: `prepare`).
    EndpointError when another host has been starting there for longer than `wait`."""
    lock = lock_path(path)
    fd = _open(lock)
    try:
        deadline = time.monotonic() + wait
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise EndpointError(f"another tiki host{_holder(fd)} has been starting on {path} for {wait:g} s "
                                    f"and holds {lock}: see its log, {paths.host_log_file(path)}, or stop it "
                                    "and run tiki again")
            time.sleep(_POLL)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass  # (only for the message above)
        yield
    finally:
        os.close(fd)  # (releases the lock)
