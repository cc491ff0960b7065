"""Windows PTY sessions on ConPTY, through pywinpty.

pywinpty speaks text, not bytes: output is decoded by ConPTY already, so it is re-encoded as
UTF-8 here (the screen decodes it incrementally like POSIX output) and input is decoded the
same way. Not exercised by CI, which runs on Linux; it implements the same `PtyProcess`
protocol as `pty_posix`.
"""

from __future__ import annotations

import threading
import time

from .pty import SpawnError

_POLL_S = 0.05


def spawn(executable: str, argv: list[str], *, cwd: str | None, env: dict[str, str], cols: int, rows: int) -> "WindowsPty":
    try:
        from winpty import PtyProcess
    except ImportError:
        raise SpawnError("pywinpty is not installed (pip install pywinpty)") from None
    command = [executable, *argv[1:]]
    try:
        proc = PtyProcess.spawn(command, cwd=cwd, env=env, dimensions=(rows, cols))
    except Exception as exc:  # noqa: BLE001 - pywinpty raises plain exceptions with the reason
        raise SpawnError(f"cannot start {argv[0]}: {exc}") from None
    return WindowsPty(proc)


class WindowsPty:
    def __init__(self, proc: object) -> None:
        self._proc = proc
        self.pid: int = proc.pid  # type: ignore[attr-defined]
        self._closed = threading.Event()
        self._exit_code: int | None = None

    def read(self, max_bytes: int = 65536) -> bytes:
        while not self._closed.is_set():
            try:
                text = self._proc.read(max_bytes)  # type: ignore[attr-defined]
            except EOFError:
                return b""
            if text:
                return text.encode("utf-8", "replace")
            if not self.is_alive():
                return b""
            time.sleep(_POLL_S)
        return b""

    def write(self, data: bytes, timeout: float | None = None) -> int:
        if self._closed.is_set():
            raise OSError("the terminal is closed")
        self._proc.write(data.decode("utf-8", "replace"))  # type: ignore[attr-defined]
        return len(data)

    def line_limit(self) -> int | None:
        return None  # ConPTY input is not cut by a POSIX line discipline

    def resize(self, cols: int, rows: int) -> None:
        self._proc.setwinsize(rows, cols)  # type: ignore[attr-defined]

    def is_alive(self) -> bool:
        return bool(self._proc.isalive())  # type: ignore[attr-defined]

    @property
    def exit_code(self) -> int | None:
        if self._exit_code is None and not self.is_alive():
            self._exit_code = self._proc.exitstatus  # type: ignore[attr-defined]
        return self._exit_code

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.is_alive():
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(_POLL_S)
        return self.exit_code

    def kill(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        try:
            self._proc.terminate(force=True)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - already gone
            pass
