"""Memory back to the system once a tab has closed.

A tab's screen and scrollback (~4.5 MB full, at 140 columns) sit in reference cycles -- the
actor, its thread bodies and the callbacks it handed out refer to each other -- so they are
freed only by Python's cyclic collector, whose full pass runs once the long-lived objects have
grown by a quarter: in a host that has run a while, hardly ever (measured: eight full tabs
closed, 137 MB before and 137 MB ten seconds after; one collection 66 MB). And what is freed
stays in glibc's per-thread arenas until they are trimmed (66 -> 51 MB).

So when a tab's actor stops, a short task waits for the tab's threads to end (the last
references from outside the cycles), then collects once and trims. A full collection holds the
GIL (~30 ms with 30 full tabs open, measured): tabs closed while one pass waits or runs are
taken by that pass or the one after it, so closing many at once costs one or two, never one
each; never on the output path.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import threading
import time
from typing import Callable, Iterable

THREADS_END_WITHIN = 10.0  # a tab's threads end within ~1 s of its close (the child is killed)


def _trimmer() -> Callable[[], object] | None:
    """glibc's `malloc_trim(0)`: free pages in every arena go back to the system."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others: no such call, nothing to do
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


_TRIM = _trimmer()


def threads_named(prefix: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith(prefix)]


_lock = threading.Lock()
_waiting: list[threading.Thread] = []  # threads of closed tabs that no pass has waited for yet
_busy = False  # a pass is running (in some task's thread): it takes what is waiting


def reclaim_after(threads: Iterable[threading.Thread], within: float = THREADS_END_WITHIN) -> None:
    """Once `threads` have ended (or `within` s passed), collect cycles and trim the heap --
    here, or in the pass already running, which goes round again for them."""
    global _busy
    with _lock:
        _waiting.extend(threads)
        if _busy:
            return
        _busy = True
    while True:
        with _lock:
            batch = _waiting[:]
            del _waiting[:]
            if not batch:
                _busy = False
                return
        deadline = time.monotonic() + within
        for thread in batch:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        try:
            gc.collect()
            if _TRIM is not None:
                _TRIM()
        except BaseException:
            with _lock:  # (the next close starts a pass again)
                _busy = False
            raise
