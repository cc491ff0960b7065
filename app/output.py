"""Turning host replies and client errors into what a user reads, and exit codes: 0 only when
the host confirmed; 3 when no host could be reached; 4 when it timed out or stayed busy."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from typing import Any, Callable, Mapping

from ..protocol import ipc, paths, schema
from ..protocol.ops import Op
from .client import ClientTimeout, HostError, NoHost, call
from .host_start import hung_host, stopped_host


def fail(message: str, code: int = ipc.EXIT_REFUSED) -> int:
    print(f"tiki: {message}", file=sys.stderr)
    return code


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
        return fail(stopped, ipc.EXIT_TIMEOUT), None
    try:
        return ipc.EXIT_OK, call(op.name, args, timeout=timeout, on_event=on_event)
    except NoHost as exc:
        return fail(str(exc) + _elsewhere(), ipc.EXIT_NO_HOST), None
    except ClientTimeout as exc:
        if hung:
            return fail(hung_host(paths.socket_path()), ipc.EXIT_TIMEOUT), None
        return fail(str(exc), ipc.EXIT_TIMEOUT), None
    except HostError as exc:
        return fail(exc.message, ipc.exit_code_for(exc.code)), None


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


def display_width(text: str) -> int:
    """Terminal columns `text` takes: wide (CJK) characters count two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns (`str.ljust` counts characters, not columns)."""
    return text + " " * max(0, width - display_width(text))
