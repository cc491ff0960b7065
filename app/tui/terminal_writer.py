"""The thread that writes the UI's output to the outer terminal, and outlives the terminal.

Textual's writer thread dies of the first failed write. When the terminal goes away (its
emulator killed, an SSH link dropped) the next write fails with EIO, the thread ends, its
bounded queue fills with the frames still coming, and the app's event loop then blocks for
good putting the next one there -- so not even the SIGHUP handler that would end the app
runs, and the UI outlives its terminal. This writer reports the loss once and from then on
takes and drops whatever it is given, so writing never blocks and the app can close.
"""

from __future__ import annotations

from typing import IO, Callable

from textual.drivers._writer_thread import WriterThread


class TerminalWriter(WriterThread):
    def __init__(self, file: IO[str], on_lost: Callable[[OSError], None]) -> None:
        super().__init__(file)
        self.name = "tiki-output"
        self._on_lost = on_lost
        self.lost: OSError | None = None

    def run(self) -> None:
        write, flush = self._file.write, self._file.flush
        get, qsize = self._queue.get, self._queue.qsize
        while True:
            text = get()
            if text is None:
                break
            if self.lost is not None:
                continue  # the terminal is gone: keep the queue moving, nothing to write to
            try:
                write(text)
                if qsize() == 0:
                    flush()
            except OSError as exc:
                self._lose(exc)
        if self.lost is None:
            try:
                flush()
            except OSError as exc:
                self._lose(exc)

    def _lose(self, exc: OSError) -> None:
        self.lost = exc
        try:
            self._on_lost(exc)
        except Exception:  # noqa: BLE001 - the app is closing: the writer must go on draining
            pass
