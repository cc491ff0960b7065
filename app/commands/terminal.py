"""`tiki terminal-*`: list, create, close, rename, restart, read, type into and wait on tabs; and
`tiki explain`, a tab's agent state and the rule that decided it."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from typing import Any, Mapping

from ...protocol import ops
from ...protocol.limits import QUEUE_FOR
from ..output import display_width, json_option, pad, print_json, request, show


def add_commands(sub: Any) -> None:
    p = sub.add_parser("terminal-list", help="list the tabs")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("terminal-new", help="open a tab: terminal-new NAME [--cwd DIR] [--role R] [-- COMMAND ...]",
                       usage="tiki terminal-new [-h] [--cwd DIR] [--role {peer,shell}] [--json] name "
                             "[-- COMMAND ...]",
                       epilog="Everything after the first `--` is the command, verbatim (default: $SHELL).")
    p.add_argument("name", help="the new tab's name: unique, up to 40 letters, digits, - _ .")
    p.add_argument("--cwd", metavar="DIR", help="working directory, relative to yours (default: yours)")
    p.add_argument("--role", choices=("peer", "shell"),
                   help="peer for AI CLIs, shell otherwise (default: guessed from the command)")
    json_option(p, "print the new tab as JSON, as terminal-list lists it (name, role, command, cwd, ...)")
    # The command after `--` is split off by `cli.main` before argparse sees it: argparse's
    # REMAINDER would swallow the options and drop every `--` inside the child's command.
    p.set_defaults(func=cmd_new, child_command=[], extra_hint=_command_hint)

    p = sub.add_parser("terminal-close", help="close a tab (its program is killed)")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    json_option(p, 'print the host\'s answer as JSON: {"closed": NAME}')
    p.set_defaults(func=lambda a: _simple(a, ops.TERMINAL_CLOSE, ops.TabName(name=a.name), f"closed {a.name}"))

    p = sub.add_parser("terminal-rename", help="rename a tab (its handshake state follows)")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    p.add_argument("new_name", help="its new name: unique, up to 40 letters, digits, - _ .")
    json_option(p, "print the renamed tab as JSON, as terminal-list lists it")
    p.set_defaults(func=lambda a: _simple(a, ops.TERMINAL_RENAME, ops.TabRename(name=a.name, new_name=a.new_name),
                                          f"renamed {a.name} to {a.new_name}"))

    p = sub.add_parser("terminal-restart", help="restart a tab's command")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    json_option(p, "print the restarted tab as JSON, as terminal-list lists it")
    p.set_defaults(func=lambda a: _simple(a, ops.TERMINAL_RESTART, ops.TabName(name=a.name), f"restarted {a.name}"))

    p = sub.add_parser("terminal-read", help="print a tab's last lines (scrollback + screen, plain text)")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    p.add_argument("--lines", type=int, default=40, metavar="N", help="how many lines (default 40)")
    p.add_argument("--json", action="store_true", help="with cursor, title and alt_screen")
    p.add_argument("--cells", action="store_true",
                   help="the visible screen cell by cell as JSON: characters, styles, cursor, modes")
    p.set_defaults(func=cmd_read)

    p = sub.add_parser("terminal-send", help="type text into a tab, then Enter",
                       epilog="The text is pasted (bracketed when the program enabled bracketed paste, so "
                              "multi-line text reaches an AI CLI as one paste); --literal types it key by key "
                              "instead, as tmux send-keys -l does (e.g. `:set number` into vim).")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    p.add_argument("text", nargs="+", help="words are joined with spaces")
    p.add_argument("--no-enter", action="store_true", help="type the text without pressing Enter")
    p.add_argument("--literal", action="store_true", help="type the text as keystrokes, never as a paste")
    p.add_argument("--now", action="store_true",
                   help="type at once, even into an agent that is working or waiting for its user")
    p.add_argument("--no-wait", action="store_true",
                   help="return once the text is queued for a working agent (the host types it when idle); "
                        "the default inside a tab, so two peers never wait on each other")
    p.add_argument("--wait", action="store_true", help="inside a tab too, return only once the text was typed")
    json_option(p, "print the host's answer as JSON: name, delivery (delivered or queued), queued_ms and, "
                   "into an agent, submitted")
    p.set_defaults(func=cmd_send)

    p = sub.add_parser("terminal-key", help="press keys in a tab (enter, esc, f5, ctrl+c, alt+x, ctrl+left, q, ...)",
                       epilog="KEY: enter tab shift+tab esc backspace delete insert up down left right home end "
                              "pageup pagedown space f1..f12; ctrl+a..ctrl+z, ctrl+[ ctrl+\\ ctrl+] ctrl+^ "
                              "ctrl+_ ctrl+space; ctrl+/alt+/shift+ on the arrows, home, end, pageup, pagedown, "
                              "insert, delete and f-keys (ctrl+shift+left); alt+ANY (alt+x, alt+.); any single "
                              "character (`:`, `A`). Aliases: C-c, ^C, M-x, S-Tab, escape, return, pgup.")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    p.add_argument("keys", nargs="+", metavar="KEY", help="key names, pressed in order (see below)")
    json_option(p, "print the host's answer as JSON: name and the keys sent")
    p.set_defaults(func=cmd_key)

    p = sub.add_parser("terminal-wait", help="wait until a tab has printed nothing for a while")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    p.add_argument("--idle-ms", type=int, default=1500, help="quiet time that counts as idle (default 1500)")
    p.add_argument("--timeout-ms", type=int, default=60000, help="give up after this long (default 60000; exit 4)")
    p.add_argument("--until", choices=("waiting", "idle", "exited", "working"),
                   help="wait for this agent state instead of quiet output (see `tiki explain`; a shell "
                        "tab is idle once the command typed at its prompt has ended, or waits quietly "
                        "to be typed to)")
    json_option(p, "print the host's answer as JSON: name, idle, waited_ms (with --until: state and reason)")
    p.set_defaults(func=cmd_wait)

    p = sub.add_parser("explain", help="a tab's agent state, the rule that matched and what it matched")
    p.add_argument("name", help="the tab's name (see `tiki terminal-list`)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_explain)


def _simple(args: argparse.Namespace, op: ops.Op, payload: Mapping[str, Any], message: str) -> int:
    """Ask the host once; say `message`, or under --json print what the host answered."""
    code, result = request(op, payload)
    if code == 0:
        show(args, result, message)
    return code


def cmd_list(args: argparse.Namespace) -> int:
    code, result = request(ops.TERMINAL_LIST)
    if code:
        return code
    if args.json:
        print_json(result)
        return 0
    rows = result["terminals"]
    width = max([display_width(t["name"]) for t in rows] + [4])
    for tab in rows:
        state = "failed" if tab["failed"] else "running" if tab["running"] else f"exited ({tab['exit_code']})"
        mark = "*" if tab["active"] else " "
        agent = f"{tab['agent']['kind']}:{tab['agent']['state']}"
        why = f"  ({tab['failed']})" if tab["failed"] else ""
        if tab.get("unseen"):  # (a host before it sends none)
            why += f"  ({tab['unseen']}, unseen)"
        print(f"{mark} {pad(tab['name'], width)}  {tab['role']:<5}  {state:<12} {agent:<16} "
              f"{' '.join(tab['command'])}{why}")
    return 0


# How other tools take a command: `terminal-new ai --command codex` is shown the line with `--`.
COMMAND_OPTIONS = ("--command", "--cmd", "-c", "--exec", "-e", "--run")


def _command_hint(args: argparse.Namespace, extra: list[str]) -> str | None:
    """For words `terminal-new` did not take (`--command codex`, or `codex --full-auto` after
    the name): the line that gives them as the tab's command, after `--`."""
    words = extra[1:] if extra[0] in COMMAND_OPTIONS else list(extra)
    if len(words) == 1 and " " in words[0]:  # `--command "vim notes.txt"`: a command line
        try:
            words = shlex.split(words[0])
        except ValueError:
            pass
    if not words or words[0].startswith("-"):
        return None  # (an option of its own that it does not have: nothing to show)
    line = ["tiki", "terminal-new"]
    line += ["--cwd", args.cwd] if args.cwd else []
    line += ["--role", args.role] if args.role else []
    line += ["--json"] if args.json else []
    return f"the tab's command goes after `--`: {shlex.join([*line, args.name, '--', *words])}"


def cmd_new(args: argparse.Namespace) -> int:
    command = list(args.child_command) or None
    payload = ops.TabNew(name=args.name, command=command, cwd=_caller_dir(args.cwd))
    if args.role:
        payload["role"] = args.role
    code, tab = request(ops.TERMINAL_NEW, payload)
    if code == 0:
        show(args, tab, f"opened {tab['name']} ({tab['role']}): {' '.join(tab['command'])}")
    return code


def _caller_dir(cwd: str | None) -> str | None:
    """The tab's directory as the host must get it: absolute, since the host runs elsewhere (a
    relative one is the caller's); by default the caller's own. None (the host's) only when
    the caller's directory is gone too."""
    try:
        return os.path.abspath(os.path.expanduser(cwd or "."))
    except FileNotFoundError:  # our own directory was deleted (getcwd fails)
        return os.path.expanduser(cwd) if cwd and os.path.isabs(os.path.expanduser(cwd)) else None


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
    payload = ops.TabSend(name=args.name, text=" ".join(args.text), enter=not args.no_enter,
                          literal=args.literal)
    if args.now:
        payload["now"] = True
    if args.no_wait or args.wait:
        payload["wait"] = bool(args.wait) and not args.no_wait

    def queued(event: dict[str, Any]) -> None:  # on stderr: stdout stays for results
        if event.get("event") == "queued":
            print(f"tiki: {event['name']} is {event['state']} ({event['reason']}); queued "
                  f"(#{event['position']}), typed when it is idle", file=sys.stderr, flush=True)

    # The send may rightly wait QUEUE_FOR seconds for a busy agent, so a host that does not
    # answer at all (stopped, hung) would go unnoticed that long: ask it first, briefly.
    code, _ = request(ops.HOST_PING, timeout=10, hung=True)
    if code:
        return code
    code, result = request(ops.TERMINAL_SEND, payload, timeout=QUEUE_FOR + 60, on_event=queued)
    if code:
        return code
    name, said = result["name"], None
    if result.get("delivery") == "queued":
        said = f"queued for {name}: the host types it when {name} is idle"
    elif result.get("queued_ms"):
        said = f"delivered to {name} after {result['queued_ms'] / 1000:.1f} s in the queue"
    show(args, result, said)
    if result.get("submitted") is False:
        print(f"tiki: {result['name']} did not show that it took the Enter (sent twice); check it with "
              f"`tiki terminal-read {result['name']}`", file=sys.stderr)
    return code


def cmd_key(args: argparse.Namespace) -> int:
    code, result = request(ops.TERMINAL_KEY, ops.TabKeys(name=args.name, keys=args.keys))
    if code == 0:
        show(args, result)
    return code


def cmd_wait(args: argparse.Namespace) -> int:
    timeout = args.timeout_ms / 1000 + 10  # the host times out first and says so (exit 4)
    payload = ops.TabWait(name=args.name, idle_ms=args.idle_ms, timeout_ms=args.timeout_ms)
    if args.until:
        payload["until"] = args.until
    code, result = request(ops.TERMINAL_WAIT, payload, timeout=timeout)
    if code == 0 and args.until:
        show(args, result, f"{result['name']} {result['state']} after {result['waited_ms']} ms ({result['reason']})")
    elif code == 0:
        show(args, result, f"{result['name']} idle after {result['waited_ms']} ms")
    return code


def cmd_explain(args: argparse.Namespace) -> int:
    code, result = request(ops.TERMINAL_EXPLAIN, ops.TabName(name=args.name))
    if code or args.json:
        if code == 0:
            print_json(result)
        return code
    r = result
    ago = max(0.0, time.time() - r["since"])
    how = {"command": f"from its command `{' '.join(r['command'])}`", "title": "from its window title",
           "screen": "from its screen", "default": "no agent recognised: the generic rules"}[r["identified_by"]]
    print(f"{r['name']}: {r['state']} for {ago:.1f} s")
    print(f"  agent:    {r['kind_name']} ({r['kind']}), {how}")
    print(f"  rule:     {r['rule']}" + (f" — {r['description']}" if r["description"] else ""))
    if r["source"]:
        print(f"  from:     {r['source']}")
    print(f"  matched:  {r['evidence']}")
    if r["last_output_s"] is not None:
        print(f"  output:   last {r['last_output_s']:.1f} s ago"
              + (f"; rules looked at again in {r['recheck_s']:.1f} s" if r["recheck_s"] is not None else ""))
    if r["state"] == "waiting" and r["screen"]:
        print("  screen:\n" + "\n".join(f"    {row}" for row in r["screen"].split("\n")))
    for error in r["rule_errors"]:
        print(f"  left out: {error}")
    return 0
