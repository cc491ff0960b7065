"""Keys typed while `tiki` starts, before the UI has the terminal in raw mode.

The prefix key, ctrl+\\, is the terminal's QUIT character: in the cooked mode a shell leaves
the terminal in, the kernel turns it into SIGQUIT, which killed the UI mid-start ("Quit", a core
file) when the user typed `tiki` and, at once, the prefix and a tab's number. From the start of
the UI until it ends, the terminal's QUIT character is switched off and typed keys are not
echoed: what is typed meanwhile waits in the terminal, and the UI reads it once it is up, the
prefix as the prefix (the raw mode it sets reads the line the kernel kept, as typed). ctrl+c
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
        quiet[3] &= ~termios.ECHO
        quiet[6][termios.VQUIT] = _disabled(fd, before[6][termios.VQUIT])
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


def _disabled(fd: int, current: Any) -> Any:
    """The value that switches a control character off (_POSIX_VDISABLE: 0 on Linux, 0xff on
    macOS), in the form termios gives it (bytes of one, or an int)."""
    try:
        value = os.fpathconf(fd, "PC_VDISABLE")
    except (OSError, ValueError):
        value = 0
    return bytes([value & 0xFF]) if isinstance(current, bytes) else value
