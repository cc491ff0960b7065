"""`tiki terminal-*`: list, create, close, rename, restart, read, type into and wait on tabs."""

from __future__ import annotations

import argparse
from typing import Any, Mapping

from ...protocol import ops
from ..output import print_json, request


def add_commands(sub: Any) -> None:
    p = sub.add_parser("terminal-list", help="list the tabs")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("terminal-new", help="open a tab: terminal-new NAME [--cwd DIR] [--role R] [-- COMMAND ...]",
                       epilog="Everything after the first `--` is the command, verbatim (default: $SHELL).")
    p.add_argument("name")
    p.add_argument("--cwd", metavar="DIR", help="working directory (default: the host's)")
    p.add_argument("--role", choices=("peer", "shell"),
                   help="peer for AI CLIs, shell otherwise (default: guessed from the command)")
    # The command after `--` is split off by `cli.main` before argparse sees it: argparse's
    # REMAINDER would swallow the options and drop every `--` inside the child's command.
    p.set_defaults(func=cmd_new, child_command=[])

    p = sub.add_parser("terminal-close", help="close a tab (its program is killed)")
    p.add_argument("name")
    p.set_defaults(func=lambda a: _simple(ops.TERMINAL_CLOSE, ops.TabName(name=a.name), f"closed {a.name}"))

    p = sub.add_parser("terminal-rename", help="rename a tab (its handshake state follows)")
    p.add_argument("name")
    p.add_argument("new_name")
    p.set_defaults(func=lambda a: _simple(ops.TERMINAL_RENAME, ops.TabRename(name=a.name, new_name=a.new_name),
                                          f"renamed {a.name} to {a.new_name}"))

    p = sub.add_parser("terminal-restart", help="restart a tab's command")
    p.add_argument("name")
    p.set_defaults(func=lambda a: _simple(ops.TERMINAL_RESTART, ops.TabName(name=a.name), f"restarted {a.name}"))

    p = sub.add_parser("terminal-read", help="print a tab's last lines (scrollback + screen, plain text)")
    p.add_argument("name")
    p.add_argument("--lines", type=int, default=40, metavar="N", help="how many lines (default 40)")
    p.add_argument("--json", action="store_true", help="with cursor, title and alt_screen")
    p.add_argument("--cells", action="store_true",
                   help="the visible screen cell by cell as JSON: characters, styles, cursor, modes")
    p.set_defaults(func=cmd_read)

    p = sub.add_parser("terminal-send", help="type text into a tab, then Enter",
                       epilog="The text is pasted (bracketed when the program enabled bracketed paste, so "
                              "multi-line text reaches an AI CLI as one paste); --literal types it key by key "
                              "instead, as tmux send-keys -l does (e.g. `:set number` into vim).")
    p.add_argument("name")
    p.add_argument("text", nargs="+", help="words are joined with spaces")
    p.add_argument("--no-enter", action="store_true", help="type the text without pressing Enter")
    p.add_argument("--literal", action="store_true", help="type the text as keystrokes, never as a paste")
    p.set_defaults(func=cmd_send)

    p = sub.add_parser("terminal-key", help="press keys in a tab (enter, esc, f5, ctrl+c, alt+x, ctrl+left, q, ...)",
                       epilog="KEY: enter tab shift+tab esc backspace delete insert up down left right home end "
                              "pageup pagedown space f1..f12; ctrl+a..ctrl+z, ctrl+[ ctrl+\\ ctrl+] ctrl+^ "
                              "ctrl+_ ctrl+space; ctrl+/alt+/shift+ on the arrows, home, end, pageup, pagedown, "
                              "insert, delete and f-keys (ctrl+shift+left); alt+ANY (alt+x, alt+.); any single "
                              "character (`:`, `A`). Aliases: C-c, ^C, M-x, S-Tab, escape, return, pgup.")
    p.add_argument("name")
    p.add_argument("keys", nargs="+", metavar="KEY")
    p.set_defaults(func=cmd_key)

    p = sub.add_parser("terminal-wait", help="wait until a tab has printed nothing for a while")
    p.add_argument("name")
    p.add_argument("--idle-ms", type=int, default=1500, help="quiet time that counts as idle (default 1500)")
    p.add_argument("--timeout-ms", type=int, default=60000, help="give up after this long (default 60000; exit 4)")
    p.set_defaults(func=cmd_wait)


def _simple(op: ops.Op, args: Mapping[str, Any], message: str) -> int:
    code, _ = request(op, args)
    if code == 0:
        print(message)
    return code


def cmd_list(args: argparse.Namespace) -> int:
    code, result = request(ops.TERMINAL_LIST)
    if code:
        return code
    if args.json:
        print_json(result)
        return 0
    rows = result["terminals"]
    width = max([len(t["name"]) for t in rows] + [4])
    for tab in rows:
        state = "running" if tab["running"] else f"exited ({tab['exit_code']})"
        mark = "*" if tab["active"] else " "
        print(f"{mark} {tab['name']:<{width}}  {tab['role']:<5}  {state:<12} {tab['activity']:<4}  {' '.join(tab['command'])}")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    command = list(args.child_command) or None
    payload = ops.TabNew(name=args.name, command=command, cwd=args.cwd)
    if args.role:
        payload["role"] = args.role
    code, tab = request(ops.TERMINAL_NEW, payload)
    if code == 0:
        print(f"opened {tab['name']} ({tab['role']}): {' '.join(tab['command'])}")
    return code


def cmd_read(args: argparse.Namespace) -> int:
    if args.cells:
        code, result = request(ops.TERMINAL_CELLS, ops.TabName(name=args.name))
        if code == 0:
            print_json(result)
        return code
    code, result = request(ops.TERMINAL_READ, ops.TabRead(name=args.name, lines=args.lines))
    if code:
        return code
    if args.json:
        print_json(result)
    else:
        print(result["text"])
    return 0


def cmd_send(args: argparse.Namespace) -> int:
    code, _ = request(ops.TERMINAL_SEND, ops.TabSend(name=args.name, text=" ".join(args.text), enter=not args.no_enter,
                                                     literal=args.literal))
    return code


def cmd_key(args: argparse.Namespace) -> int:
    code, _ = request(ops.TERMINAL_KEY, ops.TabKeys(name=args.name, keys=args.keys))
    return code


def cmd_wait(args: argparse.Namespace) -> int:
    timeout = args.timeout_ms / 1000 + 10  # the host times out first and says so (exit 4)
    code, result = request(ops.TERMINAL_WAIT, ops.TabWait(name=args.name, idle_ms=args.idle_ms,
                                                          timeout_ms=args.timeout_ms), timeout=timeout)
    if code == 0:
        print(f"{result['name']} idle after {result['waited_ms']} ms")
    return code
