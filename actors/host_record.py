"""What a running host leaves in the state directory, so that the host after it knows.

While a host runs, a small file keyed by its socket (`paths.host_record`) names the workspace
it serves and its pid; a clean stop removes it. A host that finds one when it starts therefore
follows one that never stopped -- SIGKILLed, crashed, the machine went down -- and, unless told
which workspace to serve, serves the one its predecessor did. So `tiki` after a crash brings the
same tabs back wherever it is run, not the workspace of the directory it happens to be run in
(`./tiki.toml`) or the default one.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..protocol import paths


@dataclass(frozen=True)
class Predecessor:
    """A host on the same socket that did not stop cleanly."""

    pid: int
    workspace: Path


def left_behind(socket: Path) -> Predecessor | None:
    """The host that last ran on `socket` and never stopped, if its record is there and readable."""
    try:
        data = json.loads(paths.host_record(socket).read_text(encoding="utf-8"))
        return Predecessor(int(data["pid"]), Path(data["workspace"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # none (the usual case), or a record cut short: nothing to go on


def note(socket: Path, workspace: Path) -> None:
    """Record that this process serves `workspace` on `socket` (atomically: a crash while
    writing leaves the old record or the new one, never half of one)."""
    record = paths.host_record(socket)
    record.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"pid": os.getpid(), "socket": str(socket), "workspace": str(workspace.absolute())})
    handle, temporary = tempfile.mkstemp(dir=record.parent, prefix=".host-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(body)
        os.replace(temporary, record)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def clear(socket: Path) -> None:
    """The host stops cleanly: nothing to restore after it (only its own record is removed)."""
    record = paths.host_record(socket)
    try:
        if json.loads(record.read_text(encoding="utf-8")).get("pid") == os.getpid():
            record.unlink()
    except (OSError, ValueError, AttributeError):
        pass
