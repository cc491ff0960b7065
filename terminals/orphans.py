"""Processes a tab started that left its session: the host adopts them, reaps them, ends them.

Ending a tab's session (`session`) reaches every process that kept its session id. A daemon
(fork, `setsid`, fork again) or a helper started in a session of its own (Node's `detached`,
Python's `start_new_session`: Codex starts its app-server so) keeps none, and once its parent
is gone the kernel hands it to init, out of the host's sight -- under tmux it outlives
`kill-server`. `tiki shutdown` is to leave no process behind (issue 13), so on Linux the host
process makes itself a *child subreaper* (`adopt`): such orphans become its children. Then

- `reap_adopted` collects those that exited (run on SIGCHLD), leaving alone the host's own
  children: the tabs' leaders, which their tabs reap (registered here from fork to reaping:
  `forking`, `release`), and short `ps` runs, which stay in the host's session;
- `end_descendants` ends every process still below the host once its tabs have stopped.

Only the `tiki serve` process adopts (a host inside a test runner must not adopt the runner's
orphans). Elsewhere there is no subreaper: such processes outlive the host, as under tmux.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from typing import Any, Iterator

from .session import process_table, send

_PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>

# The pids of tab leaders not yet reaped: their tabs collect their exit codes, never this module.
# Held across the fork, so a leader that exits at once is registered before it can be looked at.
_leaders_lock = threading.Lock()
_leaders: set[int] = set()
# The SIGCHLD handler runs in the main thread between any two of its steps, perhaps while that
# thread holds the lock itself (a fork there, half registered): it waits this long, then leaves
# the collecting to the next SIGCHLD or the stop -- never a deadlock, never a leader taken.
_HANDLER_PATIENCE = 0.5
# The thread collecting now, and whether a SIGCHLD came meanwhile: the handler may also run
# inside a collection of that thread (its own, or the stop's sweep), which then looks again.
_collecting_in: int | None = None
_again = False


def adopt() -> bool:
    """Make this process the reaper of orphans among its descendants; False where the system
    has no such thing (not Linux, or a kernel before 3.4)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_on_sigchld() -> None:
    """Collect adopted orphans as they exit (main thread only: it installs a signal handler).
    Interrupted system calls restart: other threads' blocking calls never see the signal."""
    signal.signal(signal.SIGCHLD, on_sigchld)
    signal.siginterrupt(signal.SIGCHLD, False)


def on_sigchld(signum: int, frame: Any) -> None:
    # An exception here would surface in whatever the main thread runs -- the host's wait for
    # its stop, which would then stop it: said in its log instead (the next SIGCHLD tries again).
    try:
        reap_adopted()
    except Exception as exc:  # noqa: BLE001
        print(f"tiki host: collecting the processes it adopted failed ({type(exc).__name__}: {exc}); "
              "zombies may show under it until the next try", file=sys.stderr, flush=True)


@contextlib.contextmanager
def forking() -> Iterator[set[int]]:
    """Hold the leaders' register across a fork; add the child's pid to the set yielded."""
    with _leaders_lock:
        yield _leaders


def release(pid: int) -> None:
    """A tab leader was reaped: its pid may come back as anyone's."""
    with _leaders_lock:
        _leaders.discard(pid)


def _children() -> list[tuple[int, bytes, int]]:
    """(pid, state, session id) of this process's children. Every thread has its own list: a
    child belongs to the thread that forked it, an adopted orphan to any of them. A kernel
    without the lists (CONFIG_PROC_CHILDREN) has every process looked at instead."""
    me, found = os.getpid(), []
    try:
        tasks = os.listdir(f"/proc/{me}/task")
    except OSError:
        return []
    pids: set[int] = set()
    listed_any = False
    for task in tasks:
        try:
            with open(f"/proc/{me}/task/{task}/children", "rb") as listed:
                pids.update(int(word) for word in listed.read().split())
            listed_any = True
        except OSError:  # a thread that ended meanwhile
            continue
    if not listed_any:
        return [(pid, state, sid) for pid, state, parent, sid in process_table() if parent == me]
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            found.append((pid, fields[0], int(fields[3])))
        except (OSError, IndexError, ValueError):
            continue
    return found


def reap_adopted() -> list[int]:
    """Collect the exit of every adopted orphan that exited; returns their pids."""
    global _collecting_in, _again
    me = threading.get_ident()
    if _collecting_in == me:  # the handler, inside this thread's collection: it looks again
        _again = True
        return []
    reaped: list[int] = []
    if not _leaders_lock.acquire(timeout=_HANDLER_PATIENCE):
        return reaped
    _collecting_in = me
    try:
        _again = True
        while _again:
            _again = False
            reaped += _collect(os.getsid(0))
    finally:
        _collecting_in = None
        _leaders_lock.release()
    return reaped


def _collect(own_session: int) -> list[int]:
    reaped = []
    for pid, state, sid in _children():
        if state != b"Z" or sid == own_session or pid in _leaders:
            continue  # alive, one of the host's own short runs, or a tab's to collect
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                reaped.append(pid)
        except ChildProcessError:
            pass
    return reaped


def descendants() -> list[int]:
    """Live processes below this one (children, theirs, and so on)."""
    below: dict[int, list[int]] = {}
    for pid, state, parent, _sid in process_table():
        if state != b"Z":
            below.setdefault(parent, []).append(pid)
    found, todo = [], [os.getpid()]
    while todo:
        for child in below.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def end_descendants(grace: float) -> tuple[list[int], list[int]]:
    """Hang up and terminate every process below this one, give them `grace` seconds, then
    SIGKILL what is left (repeated: a process may fork, or be adopted, meanwhile). Call it once
    the tabs have stopped: their leaders are reaped and what is below is adopted. Returns the
    pids it found at first and those still running at the end (another user's, as `sudo`
    makes them: this user may not signal them)."""
    first = descendants()
    if not first:
        return [], []
    send(first, (signal.SIGHUP, signal.SIGTERM, signal.SIGCONT))
    deadline, pause = time.monotonic() + grace, 0.005
    while time.monotonic() < deadline:
        reap_adopted()
        if not descendants():
            return first, []
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    for _ in range(20):
        reap_adopted()
        left = descendants()
        if not left:
            break
        send(left, (signal.SIGKILL,))
        time.sleep(0.05)
    reap_adopted()
    return first, descendants()
