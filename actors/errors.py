"""Small exception types that carry an IPC error code, so every layer can raise a clear
refusal and the IPC server turns it into a JSON error reply without guessing."""

from __future__ import annotations

from ..protocol import ipc


class TikiError(Exception):
    """A request the host understood but refuses or cannot do; `code` is an ipc error code."""

    code = ipc.REFUSED

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class UnknownTab(TikiError):
    code = ipc.UNKNOWN_TAB

    def __init__(self, name: str, names: list[str]) -> None:
        listing = ", ".join(names) if names else "(none)"
        super().__init__(f"no tab named '{name}'; tabs are: {listing}", tabs=names)
        self.name = name


class TabExists(TikiError):
    def __init__(self, name: str) -> None:
        super().__init__(f"a tab named '{name}' already exists (names are case-insensitive)")


class InvalidTabName(TikiError):
    pass


class TabNotRunning(TikiError):
    def __init__(self, name: str, exit_code: int | None) -> None:
        super().__init__(
            f"tab '{name}' has exited (code {exit_code}); restart it with "
            f"`tiki terminal-restart {name}` or from the TUI"
        )


class SpawnFailed(TikiError):
    pass


class SpawnOutOfDescriptors(SpawnFailed):
    """No terminal for the tab: the host is at its descriptor limit (see terminals.pty)."""


class WaitTimeout(TikiError):
    code = ipc.TIMEOUT


class BadArguments(TikiError):
    code = ipc.BAD_REQUEST
