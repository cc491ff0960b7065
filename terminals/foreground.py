"""The command running in the foreground of a tab's terminal, for agent-state detection.

A tab whose command is a shell may run `claude` or `codex` typed at its prompt; and when the
agent exits, its last frame stays on screen under the shell's prompt. The foreground process
group of the tab's terminal tells them apart: on Linux the session leader's
`/proc/PID/stat` names it (field `tpgid`, what `tcgetpgrp` on the terminal answers, read
without touching the PTY's descriptor) and `/proc/PGID/cmdline` gives its argv; on macOS and
the BSDs `ps` answers both. `ForegroundCommand` caches the answer: the group is looked up at
most every `LOOK_EVERY` seconds (reading /proc costs ~50 us here; `ps` a few ms), and the argv
again when the group changed, when its leader's name did (an `exec` keeps the group: `sh -c
'exec claude'` becomes Claude; Linux), or every `REFRESH` seconds. On Linux each look also
asks whether the group's leader waits in a read of the terminal (`/proc/PID/syscall`): a
program waiting to be typed to, with or without a prompt on its screen -- and, for a job that
does not, whether one of its threads waits for the terminal's input (in epoll with the terminal
in the set: an event loop watching the keyboard; or a reader thread): waiting to be typed to
when it is also quiet.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time

LOOK_EVERY = 0.5  # seconds between looks at the foreground group (Linux)
PS_EVERY = 2.0  # where only `ps` can tell (macOS), ask it at most this often
REFRESH = 2.0  # seconds before the same process group's argv is read again
# read(2)'s number in /proc/PID/syscall, by architecture (the asm-generic ones use 63)
_READ = {"x86_64": 0, "amd64": 0, "aarch64": 63, "arm64": 63, "riscv64": 63, "loongarch64": 63,
         "i386": 3, "i686": 3, "armv7l": 3, "ppc64le": 3, "ppc64": 3, "s390x": 3}.get(platform.machine())
# epoll_wait/epoll_pwait's numbers (epoll_pwait2 is 441 everywhere); where unlisted, only 441
_GENERIC_EPOLL = frozenset({22, 441})
_EPOLL = {"x86_64": frozenset({232, 281, 441}), "amd64": frozenset({232, 281, 441}), "aarch64": _GENERIC_EPOLL,
          "arm64": _GENERIC_EPOLL, "riscv64": _GENERIC_EPOLL, "loongarch64": _GENERIC_EPOLL,
          }.get(platform.machine(), frozenset({441}))
_EPOLLIN = 0x1
# Threads of a job looked at for a wait on the terminal, oldest first (an event loop is the main
# thread, or one started early): a JVM build's hundred threads cost a millisecond a look otherwise.
MAX_THREADS = 32
# Bytes of an epoll set's fdinfo read (~70 a descriptor): a server's ten thousand sockets would
# cost a millisecond a look; an event loop watching its terminal among a few thousand is seen.
FDINFO_MAX = 262144


def foreground_group(pid: int) -> int | None:
    """The foreground process group of `pid`'s controlling terminal, or None."""
    return _terminal_of(pid)[0]


def _terminal_of(pid: int) -> tuple[int | None, int | None]:
    """(foreground group, device number) of `pid`'s controlling terminal; None for what is not
    known (the device number: Linux only). One read of /proc/PID/stat on Linux."""
    if sys.platform.startswith("linux"):
        try:
            fields = _stat_fields(pid)
            tty, tpgid = int(fields[4]), int(fields[5])
        except (OSError, IndexError, ValueError):
            return None, None
        return (tpgid if tpgid > 0 else None), tty
    out = _ps("tpgid=", pid)
    return (int(out) if out.strip().isdigit() and int(out) > 0 else None), None


def command_of(pid: int) -> list[str]:
    """The argv of process `pid` ([] when it is gone or cannot be read)."""
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                raw = cmdline.read()
        except OSError:
            return []
        return [os.fsdecode(part) for part in raw.split(b"\0") if part]
    return _ps("command=", pid).split()  # ps cannot keep spaces inside arguments: good enough here


def name_of(pid: int) -> str | None:
    """The process's name as the kernel keeps it (changed by `exec`); None where /proc cannot tell."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open(f"/proc/{pid}/comm", "rb") as comm:
            return comm.read().decode(errors="replace").strip()
    except OSError:
        return None


def ended(pid: int) -> bool:
    """Whether process `pid` has ended: a zombie its parent has not reaped yet, or gone (False
    where /proc cannot tell)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        state = _stat_fields(pid)[0]
    except FileNotFoundError:
        return True
    except (OSError, IndexError):
        return False
    return state in (b"Z", b"X")


def reads_its_terminal(pid: int, tty: int | None = None) -> bool | None:
    """Is process `pid` waiting in a read of its controlling terminal -- `cat`, `bc`, a script's
    `read`: a program waiting to be typed to, whatever its screen shows? None where that cannot
    be known: not Linux, an architecture not listed, a process we may not look into (setuid).
    `tty`: the terminal's device number when the caller has read it already (/proc stat's tty_nr)."""
    if _READ is None or not sys.platform.startswith("linux"):
        return None
    try:
        with open(f"/proc/{pid}/syscall", "rb") as syscall:
            fields = syscall.read().split()  # "running", or the call's number, its arguments, sp, pc
        if tty is None:
            tty = int(_stat_fields(pid)[4])
    except (OSError, IndexError, ValueError):
        return None
    if len(fields) < 2 or fields[0] != str(_READ).encode() or tty == 0:
        return False
    try:
        return _is_terminal(pid, int(fields[1], 16), tty)
    except ValueError:
        return False


def _is_terminal(pid: int, fd: int, tty: int) -> bool:
    """Whether descriptor `fd` of process `pid` is terminal `tty` (False once it is gone)."""
    try:
        return os.stat(f"/proc/{pid}/fd/{fd}").st_rdev == tty
    except OSError:
        return False


def listens_to_its_terminal(pid: int, tty: int) -> bool:
    """Does a thread of process `pid` wait for input from its terminal (device `tty`) -- in epoll
    with the terminal in the set (an event loop watching the keyboard among other things: Node's
    readline, asyncio's `add_reader`), or in a read of it (a reader thread; Go's goroutines).
    Unlike the main thread's read (`reads_its_terminal`), that is also what a program at work
    that takes keys meanwhile does: rules ask for quiet output with it. False where /proc cannot
    tell (not Linux, a process the host may not look into)."""
    if not sys.platform.startswith("linux") or tty == 0:
        return False
    try:
        threads = sorted(os.listdir(f"/proc/{pid}/task"), key=int)
    except (OSError, ValueError):
        return False
    for thread in threads[:MAX_THREADS]:
        try:
            with open(f"/proc/{pid}/task/{thread}/syscall", "rb") as syscall:
                fields = syscall.read().split()
            if len(fields) < 2 or not fields[0].isdigit():
                continue  # running, or no system call
            call, first = int(fields[0]), int(fields[1], 16)
            if call == _READ and _is_terminal(pid, first, tty):
                return True  # a thread of its own reads the keyboard (Go's goroutines, a reader thread)
            if call in _EPOLL and _epoll_has_terminal(pid, first, tty):
                return True
        except (OSError, ValueError):
            continue  # (a thread that ended meanwhile)
    return False


def _epoll_has_terminal(pid: int, epfd: int, tty: int) -> bool:
    """Whether epoll descriptor `epfd` of `pid` watches terminal `tty` for input: its fdinfo has
    a line `tfd: N events: HEX ...` per descriptor it watches."""
    with open(f"/proc/{pid}/fdinfo/{epfd}", "rb") as info:
        lines = info.read(FDINFO_MAX).splitlines()
    for line in lines:
        words = line.split()
        if len(words) >= 4 and words[0] == b"tfd:" and words[2] == b"events:" and int(words[3], 16) & _EPOLLIN \
                and _is_terminal(pid, int(words[1]), tty):
            return True
    return False


def _stat_fields(pid: int) -> list[bytes]:
    """The fields of /proc/PID/stat after the process's name: state, ppid, pgrp, session,
    tty_nr, tpgid, ... (the name may hold ") ", hence the last one splits). Raises OSError."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return stat.read().rsplit(b")", 1)[1].split()


def _ps(field: str, pid: int) -> str:
    try:
        return subprocess.run(["ps", "-o", field, "-p", str(pid)], capture_output=True, text=True,
                              timeout=2).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


class ForegroundCommand:
    """The foreground command of one tab's terminal, cached (see the module docstring)."""

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self._group: int | None = None
        self._name: str | None = None  # the group leader's name when its argv was read
        self._argv: list[str] = []
        self._read_at = self._looked_at = -1e9
        self._every = LOOK_EVERY if sys.platform.startswith("linux") else PS_EVERY
        self._ended = False
        self._reading: bool | None = None
        self._listening = False
        self._due = -1e9  # a look before this is not the answer from this on (`look_again_at`)

    @property
    def leader_in_front(self) -> bool | None:
        """The tab's own program holds its terminal (a shell at its prompt): nothing it started
        runs in the foreground; False while a command it started does; None when the group is
        not known. As of the last `get`."""
        return None if self._group is None else self._group == self.leader

    @property
    def reading(self) -> bool | None:
        """The foreground process waits in a read of the terminal (`reads_its_terminal`; None
        where that cannot be known). As of the last `get`."""
        return self._reading

    @property
    def listening(self) -> bool:
        """A thread of the job in front waits for the terminal's input (`listens_to_its_terminal`;
        looked for only while its main thread is not reading the terminal). As of the last `get`."""
        return self._listening

    @property
    def ended(self) -> bool:
        """The tab's own program has ended, though it may not be reaped yet (its terminal then
        has no foreground group, and only the tab's command names what ran). As of the last `get`."""
        return self._ended

    def look_again_at(self, when: float) -> None:
        """The group may change before `when` (input went to the terminal: Enter starts a
        command, ctrl+d ends a program): an answer looked up before then is not kept after."""
        self._due = max(self._due, when)

    def get(self, now: float | None = None) -> list[str]:
        """The foreground argv, or [] when it cannot be known (then the tab's own command counts)."""
        now = time.monotonic() if now is None else now
        if now - self._looked_at < self._every and not self._looked_at < self._due <= now:
            return self._argv
        self._looked_at = now
        group, tty = _terminal_of(self.leader)
        if group is None:
            self._group, self._argv, self._ended, self._reading = None, [], ended(self.leader), None
            self._listening = False
            return self._argv
        # (a look each time: it changes at every key; the leader's terminal is the group's)
        self._reading = reads_its_terminal(group, tty or None)
        self._listening = group != self.leader and not self._reading and listens_to_its_terminal(group, tty or 0)
        name = name_of(group)
        if group != self._group or name != self._name or now - self._read_at >= REFRESH:
            self._group, self._name, self._argv, self._read_at = group, name, command_of(group), now
        return self._argv
