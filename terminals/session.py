"""The processes of a tab's session: waiting for the child's real exit, and ending all of them.

A tab's child is a session leader (its pid is the session id), so every process started in the
tab -- pipelines, background jobs, `nohup` jobs in their own process groups -- carries that
session id unless it deliberately left with `setsid`. Ending a tab therefore signals every
process of the session, not only the leader's process group: a job that ignores SIGHUP in
another group would otherwise outlive the host as an orphan (issue 8, item 10).

Waiting for the child is cheap: a pidfd (Linux 5.3+) or a kqueue process filter (macOS, BSD)
wakes the waiter when the child exits; elsewhere a slow `waitpid(WNOHANG)` poll is used.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import subprocess
import sys
import time
from typing import Callable

_FALLBACK_POLL_S = 0.5  # without pidfd/kqueue: how often a silent child is checked


def wait_exit(pid: int, is_gone: Callable[[], bool], wake_fd: int, timeout: float | None = None) -> bool:
    """Block until `is_gone()` (which reaps) says the child exited, `wake_fd` becomes readable,
    or `timeout` passes. Returns is_gone()'s last answer."""
    deadline = None if timeout is None else time.monotonic() + timeout
    waiter = _exit_waiter(pid)
    fds = [wake_fd] if waiter is None else [wake_fd, waiter[0]]
    try:
        while not is_gone():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            pause = left if waiter is not None else min(_FALLBACK_POLL_S, left or _FALLBACK_POLL_S)
            if wake_fd in _readable(fds, pause):
                return is_gone()
        return True
    finally:
        if waiter is not None:
            waiter[1]()


def _readable(fds: list[int], timeout: float | None) -> set[int]:
    # poll, not select: a busy host may hold descriptors above select's 1024 limit
    if hasattr(select, "poll") and sys.platform != "darwin":
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        return {fd for fd, _ in poller.poll(None if timeout is None else timeout * 1000.0)}
    ready, _, _ = select.select(fds, [], [], timeout)
    return set(ready)


def _exit_waiter(pid: int) -> tuple[int, Callable[[], None]] | None:
    """A descriptor that becomes readable when `pid` exits, and how to close it."""
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(pid)
        except OSError:  # kernel too old, or already reaped
            return None
        return fd, lambda: os.close(fd)
    if hasattr(select, "kqueue"):
        try:
            queue = select.kqueue()
        except OSError:
            return None
        try:
            event = select.kevent(pid, filter=select.KQ_FILTER_PROC,  # type: ignore[attr-defined]  # BSD/macOS only
                                  flags=select.KQ_EV_ADD, fflags=select.KQ_NOTE_EXIT)  # type: ignore[attr-defined]
            queue.control([event], 0, 0)
        except OSError:
            queue.close()
            return None
        return queue.fileno(), queue.close
    return None


# -- ending a session --------------------------------------------------------------------------


def session_members(sid: int) -> list[int]:
    """Pids of the live processes whose session id is `sid` (the leader included). OSError
    when they cannot be listed: out of file descriptors (each look at /proc takes one), no `ps`."""
    return [pid for pid, state, _parent, session in process_table() if session == sid and state != b"Z"]


def process_table() -> list[tuple[int, bytes, int, int]]:
    """(pid, state, parent pid, session id) of every process; state b"Z" for a zombie, b"" where
    `ps` does not say. OSError as for `session_members`."""
    if sys.platform.startswith("linux") and os.path.isdir("/proc"):
        return _linux_table()
    return _ps_table()


def _linux_table() -> list[tuple[int, bytes, int, int]]:
    table = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # "pid (comm) state ppid pgrp session ...": comm may hold spaces and parens.
                fields = stat.read().rsplit(b")", 1)[1].split()
            table.append((int(entry), fields[0], int(fields[1]), int(fields[3])))
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE):
                raise  # (not "gone": nothing can be looked at now)
            continue  # gone meanwhile
        except (IndexError, ValueError):
            continue
    return table


def _ps_table() -> list[tuple[int, bytes, int, int]]:
    """macOS/BSD: `ps` lists pids and parents, then each one's session id is asked."""
    try:
        out = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,stat="], capture_output=True, text=True,
                             timeout=5).stdout
    except subprocess.SubprocessError as exc:
        raise OSError(errno.ETIMEDOUT, f"ps: {exc}") from None
    table = []
    for line in out.splitlines():
        words = line.split()
        try:
            pid, parent = int(words[0]), int(words[1])
            state = words[2][:1].encode() if len(words) > 2 else b""
            table.append((pid, state, parent, os.getsid(pid)))
        except (ValueError, IndexError, OSError):
            continue
    return table


def _reachable(sid: int) -> list[int]:
    """`session_members`; when they cannot be listed, the leader's process group while it has
    a process, as one member, -sid (`os.kill(-sid, ...)` signals the group): the session's
    other groups (jobs a shell started) are then out of reach, but the tab's program is not."""
    try:
        return session_members(sid)
    except OSError:
        pass
    try:
        os.killpg(sid, 0)
    except OSError:  # none left, or not ours to signal
        return []
    return [-sid]


def signal_session(sid: int, signals: tuple[int, ...]) -> list[int]:
    """Send each of `signals` to every live process of the session; returns their pids (or
    -sid: see `_reachable`)."""
    members = _reachable(sid)
    send(members, signals)
    return members


def send(pids: list[int], signals: tuple[int, ...]) -> None:
    """Each of `signals` in turn to every one of `pids` (gone, or not ours: skipped)."""
    for sig in signals:
        for pid in pids:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass


def end_session(sid: int, reap: Callable[[], bool], grace: float) -> None:
    """Hang up and terminate every process of the session, give them `grace` seconds, then
    SIGKILL whatever is left (repeated: a process may fork while it is being killed).
    `reap()` collects the leader (our child) and says whether it is gone."""
    hangup = tuple(s for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGCONT) if s is not None)
    signal_session(sid, hangup)  # SIGCONT: a stopped job would never act on the others
    deadline = time.monotonic() + grace
    pause, longest = 0.005, (0.05 if sys.platform.startswith("linux") else 0.2)  # ps costs more
    while time.monotonic() < deadline:
        reap()
        if not _reachable(sid):
            return
        time.sleep(pause)
        pause = min(pause * 2, longest)
    for _ in range(20):
        reap()
        if not signal_session(sid, (signal.SIGKILL,)):
            return
        time.sleep(0.05)


def open_pidfd(pid: int) -> int | None:
    """A pidfd for `pid` (readable once it exits), or None where there is none."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:  # an old kernel, or a sandbox that forbids it: poll instead
        return None


def exists(pid: int) -> bool:
    """`pid` is a process (ours or not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
