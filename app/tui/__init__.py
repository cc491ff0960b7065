"""The Textual UI: a client of the host, grouped by screen area (tab bar, terminal view, agent
panel, dialogs), plus the raw input path (driver.py, raw_input.py) and the prefix commands
(keymap.py, commands.py).

`run_tui` (`tiki`, `tiki attach`) attaches to the host of the current socket, starting one in
the background when none runs, and runs the app on the session. Leaving the app detaches.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path


def _cannot_show_ui(term: str | None) -> str | None:
    """Why this terminal cannot show a full-screen UI, or None. TERM=dumb (an editor's shell
    buffer, a CI log) cannot place the cursor, and with no TERM nothing says what it can: tmux
    refuses both too. (A TERM missing from terminfo is fine: the UI needs no terminfo, and a
    terminal named after itself over SSH -- xterm-kitty, alacritty -- is the usual case.)"""
    if os.name == "nt":  # (Windows consoles set no TERM)
        return None
    if not term:
        problem = "TERM is not set, so nothing says what this terminal can do"
    elif term in ("dumb", "unknown"):
        problem = f"this terminal (TERM={term}) cannot place the cursor"
    else:
        return None
    return (f"{problem}: the UI needs one that can. Run it in a terminal emulator or tmux, or set TERM to your "
            "terminal's type (e.g. TERM=xterm-256color); the CLI works anywhere: `tiki terminal-list`, "
            "`tiki terminal-read NAME`, `tiki ask ...`")


def run_tui(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("tiki: the UI needs a terminal; `tiki serve` runs a host without one", file=sys.stderr)
        return 2
    from .type_ahead import held

    with held(sys.stdin.fileno()):  # (the prefix typed while the UI starts must not be SIGQUIT)
        try:
            return _attach(args)
        except KeyboardInterrupt:  # ctrl+c while it starts (once up, the UI reads ctrl+c as a key)
            print("tiki: interrupted before the UI was up; a host being started in the background goes on "
                  "(`tiki status` says how it is, `tiki shutdown` stops it)", file=sys.stderr)
            return 130


def _attach(args: argparse.Namespace) -> int:
    from ...protocol import paths, toml_file, ui
    from ..host_start import HostStartFailed, ensure_host
    from ..ui_client import HostError, NoHost, UiClient
    from .keymap import PrefixError, prefix_bytes

    refused = _cannot_show_ui(os.environ.get("TERM"))
    if refused:
        print(f"tiki: {refused}", file=sys.stderr)
        return 2
    # The host checks this UI's config.toml as it checks its own and sends back its [keys] (the
    # UI loads no settings models: ~0.1 s of every attach). A host started below checks it at
    # its start and does not come up with a fault in it; its log says which.
    try:
        settings = toml_file.read(paths.settings_file()) if paths.settings_file().exists() else ""
    except toml_file.TomlError as exc:
        print(f"tiki: {paths.settings_file()} {exc}", file=sys.stderr)
        return 1
    if len(settings) > ui.MAX_SETTINGS:
        print(f"tiki: {paths.settings_file()} has {len(settings):,} characters; settings are at most "
              f"{ui.MAX_SETTINGS:,}: is it the right file?", file=sys.stderr)
        return 1
    socket_path = paths.socket_path()
    workspace: Path | None = getattr(args, "workspace", None)
    try:
        started, info = ensure_host(socket_path, workspace, meanwhile=_load_app)
    except HostStartFailed as exc:
        print(f"tiki: {exc}", file=sys.stderr)
        return 1
    notices = []
    if started and info.get("workspace_note"):  # (a workspace restored after a crash)
        notices.append(f"host: {info['workspace_note']}")
    elif not started and (unused := _workspace_not_loaded(workspace, info.get("workspace"))):
        print(f"tiki: {unused}", file=sys.stderr)  # (seen once the UI has left the screen)
        notices.append(unused)
    client = UiClient(socket_path, client=f"tiki (pid {os.getpid()})")
    try:
        prefix = client.connect(settings=settings).get("keys", {}).get("prefix", "")
        prefix_bytes(prefix)
    except (NoHost, HostError, PrefixError) as exc:
        client.close()
        print(f"tiki: {paths.at_settings_file(getattr(exc, 'message', str(exc)))}", file=sys.stderr)
        return 1
    first = None
    if getattr(args, "tab", None):
        first = _tab_named(client.hello.get("tabs") or [], args.tab)
        if first is None:
            client.close()
            names = ", ".join(f"{n}: {t['name']}" for n, t in enumerate(client.hello.get("tabs") or [], 1))
            print(f"tiki: no tab '{args.tab}'; the tabs are {names or '(none)'}", file=sys.stderr)
            return 2
    return _run_app(client, prefix, tuple(notices), first)


def _workspace_not_loaded(explicit: Path | None, served: str | None) -> str | None:
    """What to say when the running host serves another workspace than the one this `tiki`
    would have started (`--workspace`, else ./tiki.toml): it attaches to that host all the
    same, and the user, looking at tabs they did not expect, must hear why."""
    wanted = explicit.resolve() if explicit is not None else None
    if wanted is None and Path("tiki.toml").is_file():
        wanted = Path("tiki.toml").resolve()
    if wanted is None or served == str(wanted):
        return None
    how = "--workspace " if explicit is not None else "this folder's "
    again = f" --workspace {shlex.quote(str(wanted))}" if explicit is not None else ""
    return (f"a host was already running, serving {served or 'no workspace file'}: this UI shows its tabs, and "
            f"{how}{wanted} was not loaded. `tiki shutdown` stops that host and its tabs; `tiki` then "
            f"starts one with it. Or run a second host beside it: `TIKI_SOCKET={_beside(wanted)} tiki{again}`")


def _beside(workspace: Path) -> str:
    """A socket path for a second host serving `workspace`, named after it (after its folder for
    a tiki.toml), in the directory of the socket in use (quoted for a shell)."""
    from ...protocol import paths

    name = paths.file_word(workspace.parent.name if workspace.name == "tiki.toml" else workspace.stem, "second")
    current = paths.socket_path()
    if name == current.stem:
        name += "-2"
    return shlex.quote(str(current.with_name(f"{name}.sock")))


def _tab_named(tabs: list[dict], wanted: str) -> int | None:
    """The id of the tab `wanted` names: its name (case-insensitive, as tab names are), else its
    number in the tab bar."""
    for tab in tabs:
        if tab["name"].casefold() == wanted.casefold():
            return tab["id"]
    if wanted.isascii() and wanted.isdigit() and 1 <= int(wanted) <= len(tabs):  # ("²".isdigit(), int fails)
        return tabs[int(wanted) - 1]["id"]
    return None


# Textual repaints on a timer of its own (60 a second by default): a frame that arrives just
# after a tick waits up to a whole period. A shorter period shortens that wait (it costs
# nothing when idle: the timer runs only while something is waiting to be drawn, and frames
# come at most 60 a second). Read once, when Textual is first imported.
REPAINT_FPS = 120


def _load_app() -> type:
    os.environ.setdefault("TEXTUAL_FPS", str(REPAINT_FPS))
    from .main import TikiApp

    return TikiApp


def _run_app(client: object, prefix: str, notices: tuple[str, ...] = (), first: int | None = None) -> int:
    TikiApp = _load_app()  # noqa: N806 - the class

    driver = None
    if os.name == "posix":
        from .driver import RawDriver

        driver = RawDriver
    app = TikiApp(client, prefix, notices=notices, first=first, driver_class=driver)
    try:
        app.run()
    finally:
        client.close()  # type: ignore[attr-defined]
    reason = app.detached_reason or "detached: the tabs keep running; `tiki` attaches again"
    try:
        print(f"tiki: {reason}", file=sys.stderr)
    except OSError:
        pass  # the terminal is gone (EIO): nobody to tell
    if app.return_code:  # Textual sets 1 when the app died of an exception
        return app.return_code
    return 0 if app.detached_reason is None or "stopping" in app.detached_reason else 1
