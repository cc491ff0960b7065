"""Appending to the host's private files: the event log and the coordinator's transcripts.

They hold what tabs, peers and the model said (a transcript holds whole tab screens), so they
are the user's alone -- 0600 in a 0700 directory, as tmux keeps its socket directory -- and an
append is one whole line or nothing, so a full disk never leaves half a line that the next
entry would be joined to (a reader would skip both as one damaged line).
"""

from __future__ import annotations

import os
from pathlib import Path


def make_private_dir(path: Path) -> None:
    """`path` and its missing parents; `path` itself 0700 when made here (one that exists is
    the user's to set)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def append_line(path: Path, line: bytes) -> None:
    """Append `line` (ending in a newline) whole, or raise OSError leaving the file as it was."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
    try:
        st = os.fstat(fd)
        size = st.st_size
        if st.st_mode & 0o077 and hasattr(os, "fchmod"):  # one made before these files were private
            os.fchmod(fd, 0o600)
        if size:  # (lseek + read, not pread: Windows has none; O_APPEND writes at the end anyway)
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":  # a half line left by a crash: end it
                line = b"\n" + line
        try:
            done = 0
            while done < len(line):
                done += os.write(fd, line[done:])
        except OSError:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)
