"""A running host whose socket file was removed under it (a /tmp cleaner, `rm -rf` of its
directory): the host makes it again, and a client and a would-be second host wait for that.

The host looks at its socket file every `connection.KEEP_EVERY` seconds and makes it again
(`IpcServerActor._keep_endpoint`, with `remake`). Meanwhile its record of itself
(`host_record.running`) still names it, so a client that finds no file but a recorded host
that runs waits for it (`REMAKE_WAIT`) instead of saying no host runs; and a new host refuses to
start beside it: it would take the path, and the running host's tabs would be out of everyone's
reach. Imports nothing heavy (the command line's fast path uses it).
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from ...protocol import paths
from .. import host_record
from . import endpoint_file
from .endpoint import BACKLOG, is_live, prepare
from .endpoint_errors import EndpointError, HostAlreadyRunning

# How long to wait for a running host to make its socket again: it looks every second; a
# loaded machine may take a little longer.
REMAKE_WAIT = 3.0


def gone(path: Path, pid: int) -> str:
    """What to say when the host `pid` runs but its socket file at `path` has not come back."""
    stopped = host_record.process_state(pid) in ("T", "t")
    why = (f"it is stopped: `kill -CONT {pid}` lets it make the file again" if stopped else
           f"see its log, {paths.host_log_file(path)}")
    return (f"the host at {path} (pid {pid}) is running, but its socket file was removed and it has not made "
            f"it again within {REMAKE_WAIT:g} s ({why}); `kill {pid}` stops it and its tabs")


def refuse_beside(path: Path) -> None:
    """Raise HostAlreadyRunning when a recorded host still runs for `path`: its socket comes
    back (`prepare` found none that answers), or it does not and the message says what to do."""
    pid = host_record.running(path)
    if pid is None:
        return
    deadline = time.monotonic() + REMAKE_WAIT
    while time.monotonic() < deadline:
        if host_record.running(path) is None:
            return  # (it has stopped meanwhile, or was stopping: its record is gone)
        if is_live(path):
            raise HostAlreadyRunning(f"a tiki host (pid {pid}) is already running on {path}; use it, stop it with "
                                     "`tiki shutdown`, or start another with a different TIKI_SOCKET")
        time.sleep(0.1)
    raise HostAlreadyRunning(gone(path, pid) + "; starting another host there would leave its tabs out of reach")


def remake(path: Path, listener: socket.socket, auth: str | None) -> tuple[socket.socket, str | None]:
    """The endpoint at `path` made again after its file was removed: a Unix socket's path
    cannot be linked to it again, so a new socket is bound there (the old one stops taking
    connections); a TCP endpoint file is written again, with the same port and secret.
    EndpointError when the path cannot be used (HostAlreadyRunning: another host is there).
    Unlike `listen`, no umask is set meanwhile: it is the whole process's, and a tab started
    in that moment would keep it."""
    prepare(path)
    try:
        if auth is not None:
            endpoint_file.write(path, listener.getsockname()[1], auth)  # (created 0600)
            return listener, auth
        fresh = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            fresh.bind(str(path))  # (`prepare` checked its directory; accept refuses other users: peer credentials)
            os.chmod(path, 0o600)
            fresh.listen(BACKLOG)
        except OSError:
            fresh.close()
            raise
        return fresh, None
    except OSError as exc:
        raise EndpointError(f"cannot make {path} again: {exc.strerror or exc}") from None
