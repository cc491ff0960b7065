"""Turning host replies and client errors into what a user reads, and exit codes: 0 only when
the host confirmed; 3 when no host could be reached; 4 when it timed out or stayed busy.

With `--json` a failure is also one JSON object on stdout, so a script reading the command's
JSON needs no second parser for its errors:
`{"error": {"code": "unknown_tab", "message": "...", "exit": 1, ...the host's details}}`."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from typing import Any, Callable, Mapping

from ..protocol import ipc, paths, schema
from ..protocol.ops import Op
from .client import ClientTimeout, HostBusy, HostError, NoHost, call
from .host_start import hung_host, stopped_host

# The error code of a failure the host did not name (it was not reached, or not asked).
CLIENT_ERRORS = {ipc.EXIT_REFUSED: "failed", ipc.EXIT_USAGE: "usage", ipc.EXIT_NO_HOST: "no_host",
                 ipc.EXIT_TIMEOUT: "timeout"}

_errors_as_json = False


def errors_as_json(on: bool) -> None:
    """From here on, failures are also printed as JSON on stdout (the command has `--json`)."""
    global _errors_as_json
    _errors_as_json = on


def fail(message: str, code: int = ipc.EXIT_REFUSED, error: str | None = None,
         details: Mapping[str, Any] | None = None) -> int:
    """Say `message` on stderr (and as JSON on stdout under `--json`); returns the exit `code`.
    `error` names the failure for scripts (the host's error code, or `CLIENT_ERRORS`)."""
    print(f"tiki: {message}", file=sys.stderr)
    error_json(message, code, error, details)
    return code


def error_json(message: str, code: int, error: str | None = None, details: Mapping[str, Any] | None = None) -> None:
    """Under `--json`, the failure as one JSON object on stdout; otherwise nothing."""
    if _errors_as_json:
        print(json.dumps({"error": error_body(message, code, error, details)}, ensure_ascii=False), flush=True)


def error_body(message: str, code: int, error: str | None = None,
               details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What `{"error": ...}` holds: the host's details, the error's code, the message, the exit code."""
    return {**(details or {}), "code": error or CLIENT_ERRORS.get(code, "failed"), "message": message, "exit": code}


def request(op: Op, args: Mapping[str, Any] | None = None, *, timeout: float | None = 30.0,
            on_event: Callable[[dict[str, Any]], None] | None = None, hung: bool = False) -> tuple[int, Any]:
    """Call the host with `op` (built as `op.args(...)`); returns (exit code, result). Errors are
    printed here, once. `hung`: no answer in time means the host is hung or stopped where we
    cannot tell (a quick question), and the message says so and what to do."""
    try:
        schema.check(op.args, json.loads(json.dumps(dict(args or {}))))  # (as the host will see it: JSON)
    except schema.SchemaError as exc:  # the user's own mistake: a usage error, before any host is asked
        return fail(_as_typed(str(exc)), ipc.EXIT_USAGE), None
    # A stopped host (Ctrl+Z on `tiki serve`, SIGSTOP) takes the connection and answers
    # nothing: said at once, not after the timeout (`tiki ask` has none: it waited for ever).
    if (stopped := stopped_host(paths.socket_path())) is not None:
        return fail(stopped, ipc.EXIT_TIMEOUT, "host_stopped"), None
    try:
        return ipc.EXIT_OK, call(op.name, args, timeout=timeout, on_event=on_event)
    except NoHost as exc:
        return fail(str(exc) + _elsewhere(), ipc.EXIT_NO_HOST), None
    except ClientTimeout as exc:
        if hung:
            return fail(hung_host(paths.socket_path()), ipc.EXIT_TIMEOUT, "host_hung"), None
        return fail(str(exc), ipc.EXIT_TIMEOUT, "busy" if isinstance(exc, HostBusy) else "timeout"), None
    except HostError as exc:
        return host_failed(exc), None


def host_failed(exc: HostError, prefix: str = "") -> int:
    """The host's own error: its message, its code and details for scripts, its exit code."""
    return fail(prefix + exc.message, ipc.exit_code_for(exc.code), exc.code, exc.details)


def _elsewhere() -> str:
    """Hosts that run on other sockets, said after "no host here": a second workspace's host,
    reached from a terminal where TIKI_SOCKET is not set."""
    from ..actors.host_record import running_hosts  # (light: json and paths)

    others = [host for host in running_hosts() if host.socket != paths.socket_path()]
    if not others:
        return ""
    if len(others) == 1:
        return (f"; a host runs on {others[0].socket} (serving {others[0].workspace}): "
                f"TIKI_SOCKET={others[0].socket} reaches it")
    return f"; {len(others)} hosts run on other sockets: `tiki hosts` lists them"


def _as_typed(message: str) -> str:
    """A schema error in the words of the command line: `'lines' must be ...` names the option
    the user typed (`--lines`), or the argument as the usage line shows it (`new_name`)."""
    match = re.match(r"'(\w+)' (.*)", message)
    if match is None:
        return message
    option = "--" + match[1].replace("_", "-")
    typed = any(arg == option or arg.startswith(option + "=") for arg in sys.argv[1:])
    return f"{option if typed else match[1]} {match[2]}"


def print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def json_option(parser: Any, what: str = "machine-readable output") -> None:
    """The command's `--json`: `what` it prints (a failure is `{"error": ...}` on stdout too)."""
    parser.add_argument("--json", action="store_true", help=what)


def show(args: Any, result: Any, human: str | None = None) -> None:
    """What a command that worked prints on stdout: under `--json` the host's `result` as JSON,
    else the `human` line (None: nothing)."""
    if getattr(args, "json", False):
        print_json(result)
    elif human is not None:
        print(human)


def display_width(text: str) -> int:
    """Terminal columns `text` takes: wide (CJK) characters count two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns (`str.ljust` counts characters, not columns)."""
    return text + " " * max(0, width - display_width(text))
