"""Keys typed while `tiki` starts, before the UI has the terminal in raw mode.

The prefix key, ctrl+\\, is the terminal's QUIT character: in the cooked mode a shell leaves
the terminal in, the kernel turns it into SIGQUIT, which killed the UI mid-start ("Quit", a core
file) when the user typed `tiki` and, at once, the prefix and a tab's number. From the start of
the UI until it ends, the terminal reads keys as the UI will (raw: Enter as CR, no line editing,
nothing echoed) with its QUIT character switched off: what is typed meanwhile waits in the
terminal, and the UI reads it once it is up, exactly as typed, the prefix as the prefix. ctrl+c
still interrupts a start that hangs. The terminal's settings as they were are what the driver
gives back when the UI suspends (ctrl+z) or ends, and what `held` restores on the way out.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

_before: list[Any] | None = None  # the terminal's settings when `tiki` started


@contextlib.contextmanager
def held(fd: int) -> Iterator[None]:
    """Within: the QUIT character off and no echo on terminal `fd`; restored after."""
    global _before
    try:
        import termios
    except ImportError:  # Windows: no such characters
        yield
        return
    try:
        before = termios.tcgetattr(fd)
        quiet = termios.tcgetattr(fd)
        # As the UI will read them (raw): each byte as typed, Enter as CR, no line editing or
        # flow control by the kernel, nothing echoed; ctrl+c still stops a start that hangs.
        quiet[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON)
        quiet[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
        quiet[6][termios.VMIN], quiet[6][termios.VTIME] = _cc(before[6][termios.VMIN], 1), _cc(before[6][termios.VTIME], 0)
        quiet[6][termios.VQUIT] = _cc(before[6][termios.VQUIT], _disabled(fd))
        termios.tcsetattr(fd, termios.TCSANOW, quiet)  # (not TCSAFLUSH: nothing typed is dropped)
    except (OSError, termios.error):  # not a terminal after all
        yield
        return
    _before = before
    try:
        yield
    finally:
        _before = None
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)


def settings_before() -> list[Any] | None:
    """The terminal's settings from before the UI started (None outside `held`)."""
    return _before


def _disabled(fd: int) -> int:
    """The value that switches a control character off (_POSIX_VDISABLE: 0 on Linux, 0xff on macOS)."""
    try:
        return os.fpathconf(fd, "PC_VDISABLE")
    except (OSError, ValueError):
        return 0


def _cc(current: Any, value: int) -> Any:
    """`value` in the form termios gives a control character: bytes of one, or an int (VMIN
    and VTIME in non-canonical mode)."""
    return bytes([value & 0xFF]) if isinstance(current, bytes) else value
