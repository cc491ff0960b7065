"""`tiki`: the command line. With no subcommand it attaches the TUI to the host (`tiki attach`).

Each area's subcommands live in their own module exposing `add_commands(subparsers)`; every
handler returns an exit code (0 ok, 1 refused/failed, 2 usage, 3 no host, 4 timed out).
This module and the command modules import no Textual and no LLM client at import time.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from ..protocol import ipc
from ..terminals.env import undo_locale_coercion
from .commands import coordinator, host, peers, terminal
from .output import error_json, errors_as_json

COMMAND_MODULES = (terminal, host, coordinator, peers)

DESCRIPTION = """\
tikitaka: a terminal workspace where a local LLM coordinator and the CLI AIs in your tabs
talk to each other. Run `tiki` for the UI (it attaches to the running host, starting one in
the background if none runs; leaving it detaches, the tabs run on), `tiki serve` for a host in
the foreground; every other command talks to the running host over its local socket
(TIKI_SOCKET)."""

EPILOG = """\
exit codes: 0 ok, 1 the host refused or failed, 2 usage, 3 no host reachable, 4 timed out.
Every command that talks to the host takes --json: what the host answered, as JSON on stdout;
a failure is then one line on stdout too: {"error": {"code", "message", "exit"}}.
`tiki help peer` prints the briefing for an AI running in a tab."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with the usage line
        self.print_usage(sys.stderr)
        error_json(f"{self.prog}: {message}", ipc.EXIT_USAGE)  # (when the line asked for JSON)
        self.exit(ipc.EXIT_USAGE, f"{self.prog}: error: {message}\n")


# The options that ask for JSON output: with one of them, failures are JSON on stdout too.
_WANTS_JSON = {"--json", "--cells"}


class _Described:
    """The subcommands' `add_parser`, whose one-line help is also the description their own
    `--help` opens with (`tiki shutdown --help` said nothing of what it does)."""

    def __init__(self, subparsers: Any) -> None:
        self._subparsers = subparsers

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if "help" in kwargs:
            kwargs.setdefault("description", kwargs["help"])
        return self._subparsers.add_parser(name, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tiki", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    host.ui_arguments(parser)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    subparsers = _Described(parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser))
    for module in COMMAND_MODULES:
        module.add_commands(subparsers)
    parser.set_defaults(func=None, parser=parser)
    return parser


# Commands whose arguments end with `-- COMMAND ...`: the child's argv, kept verbatim.
TAKES_COMMAND = ("terminal-new",)


def split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """(tiki's own arguments, the child command after the first `--`), for TAKES_COMMAND."""
    if "--" not in argv:
        return argv, None
    cut = argv.index("--")
    if not any(word in TAKES_COMMAND for word in argv[:cut]):
        return argv, None  # elsewhere `--` is argparse's own "no more options"
    return argv[:cut], argv[cut + 1:]


def main(argv: list[str] | None = None) -> int:
    undo_locale_coercion()  # (before anything is started with this environment: the host, tabs)
    parser = build_parser()
    own, child = split_command(sys.argv[1:] if argv is None else list(argv))
    errors_as_json(bool(_WANTS_JSON.intersection(own)))  # (for usage errors: nothing is parsed yet)
    args, extra = parser.parse_known_args(own)
    if extra:  # (what parse_args says, with the command's own hint when it has one)
        hint = getattr(args, "extra_hint", None)
        said = hint(args, extra) if hint is not None else None
        parser.error(f"unrecognized arguments: {' '.join(extra)}" + (f"; {said}" if said else ""))
    if child is not None:
        args.child_command = child
    if args.version:
        from importlib.metadata import version

        print(f"tikitaka {version('tikitaka')}")
        return 0
    errors_as_json(any(getattr(args, option[2:], False) is True for option in _WANTS_JSON))
    if args.func is None:
        from .tui import run_tui  # imported only here: the TUI pulls in Textual

        return run_tui(args)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Only our own stdout raises this here (`tiki log | head`: the reader left, not an error
        # worth a traceback). A connection to the host that breaks never surfaces as this: the
        # client turns it into NoHost/HostError/HostBusy, which are never exit 0.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
