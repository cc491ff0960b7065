"""Running the real TikiApp for Pilot tests: a real in-process host, and the app attached to
it through the real socket (a UI session, as `tiki` attaches)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Callable

import pykka

from tikitaka.actors.host import Host, HostOptions
from tikitaka.app.tui.main import TikiApp
from tikitaka.app.ui_client import UiClient

PREFIX = "ctrl+backslash"  # the default prefix key, as Pilot names it


def attach(host: Host, prefix: str = "ctrl+\\") -> TikiApp:
    """A TikiApp attached to `host` over its socket (`app.host` is kept for the tests)."""
    client = UiClient(host.socket_path, client="pilot")
    client.connect()
    app = TikiApp(client, prefix)
    app.host = host  # type: ignore[attr-defined]
    return app


def make_app(tmp_path: Path, workspace: str, bare: bool = False) -> TikiApp:
    """The app on a host of `workspace`; `bare`: without the coordinator and the bot."""
    path = tmp_path / "tui-workspace.toml"
    path.write_text(workspace)
    options = HostOptions(workspace=path, coordinator=not bare, peers=not bare)
    host = Host(options)
    host.start()
    return attach(host)


def stop(app: TikiApp) -> None:
    app.client.close()
    app.host.stop()  # type: ignore[attr-defined]
    pykka.ActorRegistry.stop_all()


def screen_text(app: TikiApp) -> str:
    view = app.view  # not a query: a dialog may cover the main screen
    return "\n".join("".join(text for text, _ in row) for row in view.rows)


async def until(pilot: Any, predicate: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


__all__ = ["attach", "make_app", "stop", "screen_text", "until", "asyncio", "PREFIX"]
