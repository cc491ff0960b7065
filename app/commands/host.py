"""`tiki serve`, `attach`, `shutdown`, `bot-chat`, `hosts`, `log`, `help` and `doctor`."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from ...protocol import ipc, ops, paths
from ..output import error_body, fail, host_failed, json_option, print_json, request, show


def add_commands(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the host in the foreground, without a UI (UIs attach to it)")
    p.add_argument("--workspace", type=_path, metavar="FILE",
                   help="workspace TOML (default: the one a host that did not shut down served here, else "
                        "./tiki.toml, else the saved workspace, else one shell tab)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("attach", help="attach a UI to the running host (started in the background if none "
                                      "runs); the same as `tiki` alone")
    ui_arguments(p)
    p.set_defaults(func=cmd_attach)

    p = sub.add_parser("shutdown", help="stop the running host and every process its tabs started (on Linux also "
                                        "daemons that left a tab's session)")
    p.add_argument("--all", action="store_true", help="every host running for you, on any socket (`tiki hosts`)")
    json_option(p, 'print the host\'s answer as JSON: {"stopping": true}; with --all, {"hosts": [...]}, each '
                   'with its socket, pid, workspace and "stopping" or "error"')
    p.set_defaults(func=cmd_shutdown)

    p = sub.add_parser("bot-chat", help='send a message to the coordinator: bot-chat "DONE(42)" --from Claude')
    p.add_argument("message", nargs="+", help="words are joined with spaces; DONE(...) is unwrapped")
    p.add_argument("--from", dest="sender", metavar="NAME",
                   help="your tab name (default $TIKI_TAB; required outside a tab)")
    json_option(p, "print the host's answer as JSON: from, verified, verified_by, text, note")
    p.set_defaults(func=cmd_bot_chat)

    p = sub.add_parser("hosts", help="list the hosts running for you, one per socket (* this one), with the "
                                     "workspace each serves")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=cmd_hosts)

    p = sub.add_parser("log", help="print the event log of the host on this socket, oldest first (with no host "
                                   "running, the log it left)")
    p.add_argument("--last", type=int, metavar="N", help="only the last N events")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=cmd_log)

    p = sub.add_parser("help", help="usage; `help peer` is the briefing a peer AI reads")
    p.add_argument("topic", nargs="?", help="peer, or a command name")
    p.set_defaults(func=cmd_help)

    p = sub.add_parser("doctor", help="check that this machine can run tikitaka")
    json_option(p, 'the checks as JSON: {"checks": [{"status", "name", "detail"}, ...]} (status ok, FAIL or info)')
    p.set_defaults(func=cmd_doctor)


def _path(value: str):
    from pathlib import Path

    return Path(value).expanduser().resolve()


def cmd_serve(args: argparse.Namespace) -> int:
    from ...actors.host import Host, HostError, HostOptions
    from ...terminals import orphans

    # Before the first tab: a daemon a tab starts becomes this process's child, not init's, so
    # the host can collect it and end it (`tiki shutdown` leaves no process behind).
    adopting = orphans.adopt()
    if adopting:
        orphans.reap_on_sigchld()
    try:
        host = Host(HostOptions(workspace=args.workspace))
        host.start()
    except HostError as exc:
        return fail(str(exc))

    def on_signal(signum: int, frame: Any) -> None:
        host.request_stop()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, on_signal)
    listed = host.workspace.list_tabs().get(timeout=10)
    tabs = ", ".join(tab.name + (" (failed)" if tab.failed else "") for tab in listed)
    if host.start_note:
        print(f"tiki host: {host.start_note}", file=sys.stderr, flush=True)
    for tab in listed:  # kept in the workspace, failed: the user must see it from the start
        if tab.failed:
            print(f"tiki host: tab '{tab.name}' failed: {tab.failed}; fix that, then "
                  f"`tiki terminal-restart {tab.name}`", file=sys.stderr, flush=True)
    print(f"tiki host ready on {host.socket_path} (tabs: {tabs}); stop with `tiki shutdown` or ctrl+c",
          file=sys.stderr, flush=True)
    try:
        while not host.wait_stopped(0.5):
            pass
    finally:
        host.stop()
        if adopting:
            _end_left_behind()
    return 0


def _end_left_behind() -> None:
    """The tabs have ended their sessions; what still runs below the host left them."""
    from ...terminals import orphans

    ended, left = orphans.end_descendants(grace=1.0)
    if ended:
        print(f"tiki host: ended {len(ended)} process(es) that tabs had started outside their sessions "
              f"(pids {', '.join(map(str, ended))})", file=sys.stderr, flush=True)
    if left:
        print(f"tiki host: could not end pids {', '.join(map(str, left))} (not yours to signal: started with "
              "sudo?); they run on", file=sys.stderr, flush=True)


def ui_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `tiki attach`, which `tiki` alone takes too."""
    parser.add_argument("--workspace", type=_path, metavar="FILE",
                        help="workspace TOML for a host started now (default: the one a host that did not shut "
                             "down served, else ./tiki.toml, else the saved workspace)")
    parser.add_argument("-t", "--tab", metavar="TAB",
                        help="show this tab first: its name (as `tiki terminal-list` lists it) or its number in "
                             "the tab bar")


def cmd_attach(args: argparse.Namespace) -> int:
    from ..tui import run_tui  # imported only here: the UI pulls in Textual

    return run_tui(args)


def cmd_shutdown(args: argparse.Namespace) -> int:
    if args.all:
        return _shutdown_all(args)
    code, result = request(ops.HOST_SHUTDOWN)
    if code == 0:
        show(args, result, "host stopping")
    return code


def _shutdown_all(args: argparse.Namespace) -> int:
    """Each running host asked to stop; one that cannot be (stopped, not answering) is named
    with what to do, and the others stop all the same. Exit 0 only when every one was asked.
    With --json, one object at the end: each host with its answer or its `error` (said on
    stderr too; no `{"error": ...}` of its own, since the other hosts may have stopped)."""
    from ...actors.host_record import running_hosts

    found = running_hosts()
    if not found:
        show(args, {"hosts": []}, "no tiki host is running")
        return 0
    entries = [_stop_one(host, args.json) for host in found]
    if args.json:
        print_json({"hosts": entries})
    return next((entry["error"]["exit"] for entry in entries if "error" in entry), 0)


def _stop_one(host: Any, as_json: bool) -> dict[str, Any]:
    """`host` (a running host's record) asked to stop: its socket, pid and workspace, with the
    host's answer, or the `error` that kept it from being asked."""
    from ..client import ClientTimeout, HostError, NoHost, call

    entry: dict[str, Any] = {"socket": str(host.socket), "pid": host.pid, "workspace": str(host.workspace)}

    def failed(message: str, code: int, error: str | None = None, details: Any = None) -> dict[str, Any]:
        print(f"tiki: {message}", file=sys.stderr)
        return {**entry, "error": error_body(message, code, error, details)}

    if host.stopped:
        return failed(f"the host on {host.socket} (pid {host.pid}) is stopped and cannot be asked: "
                      f"`kill -CONT {host.pid}`, then again", ipc.EXIT_TIMEOUT, "host_stopped")
    try:
        answer = call(ops.HOST_SHUTDOWN.name, {}, timeout=10, socket_path=host.socket)
    except NoHost as exc:
        return failed(str(exc), ipc.EXIT_NO_HOST)
    except ClientTimeout:
        return failed(f"the host on {host.socket} (pid {host.pid}) did not answer within 10 s: "
                      f"`kill {host.pid}` stops it", ipc.EXIT_TIMEOUT, "host_hung")
    except HostError as exc:
        return failed(f"the host on {host.socket}: {exc.message}", ipc.exit_code_for(exc.code), exc.code,
                      exc.details)
    if not as_json:
        print(f"host on {host.socket} stopping (pid {host.pid}, serving {host.workspace})")
    return {**entry, **answer}


def cmd_bot_chat(args: argparse.Namespace) -> int:
    sender = args.sender or os.environ.get("TIKI_TAB")
    payload = ops.Chat(message=" ".join(args.message))
    if sender:
        payload["from"] = sender
    elif not os.environ.get("TIKI_TAB_TOKEN"):
        return fail("--from NAME is required outside a tikitaka tab", ipc.EXIT_USAGE)
    code, result = request(ops.BOT_CHAT, payload)
    if code == 0:
        why = "; ".join(filter(None, ["sent from outside any tab", result.get("note")]))
        note = "" if result["verified"] else f" (unverified: {why})"
        show(args, result, f"delivered as {result['from']}{note}")
    return code


def cmd_hosts(args: argparse.Namespace) -> int:
    """From the records hosts keep in the state directory: no host is asked (a stopped one
    would not answer), so it answers at once."""
    from ...actors.host_record import running_hosts

    here = paths.socket_path()
    found = running_hosts()
    if args.json:
        print_json({"hosts": [{"socket": str(host.socket), "pid": host.pid, "workspace": str(host.workspace),
                               "state": "stopped" if host.stopped else "running", "this_socket": host.socket == here}
                              for host in found]})
        return 0
    if not found:
        print(f"no tiki host is running (that keeps its state in {paths.state_dir()}); `tiki` starts one")
        return 0
    width = max(len(str(host.socket)) for host in found)
    for host in found:
        state = f"stopped: `kill -CONT {host.pid}`" if host.stopped else "running"
        print(f"{'*' if host.socket == here else ' '} {str(host.socket):<{width}}  pid {host.pid:<7} {state:<9} "
              f"{host.workspace}")
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    from ...actors.event_log import format_event, read_events
    from ..client import ClientTimeout, HostError, NoHost, call

    if args.last is not None and args.last < 1:
        return fail("--last must be a positive number", ipc.EXIT_USAGE)
    try:  # the running host's log; with no host, the file it left is the log
        events = call(ops.LOG_TAIL.name, ops.LogTail(last=args.last) if args.last else ops.LogTail())["events"]
    except NoHost:
        events = read_events(paths.event_log_file(), args.last)
    except ClientTimeout as exc:
        return fail(str(exc), ipc.EXIT_TIMEOUT)
    except HostError as exc:
        return host_failed(exc)
    for entry in events:
        print(print_json_line(entry) if args.json else format_event(entry))
    return 0


def print_json_line(entry: dict[str, Any]) -> str:
    import json

    return json.dumps(entry, ensure_ascii=False)


def peer_briefing() -> str:
    from importlib import resources

    return resources.files("tikitaka.assets").joinpath("peer_briefing.md").read_text(encoding="utf-8")


def cmd_help(args: argparse.Namespace) -> int:
    parser = args.parser
    if args.topic is None:
        parser.print_help()
        return 0
    if args.topic == "peer":
        print(peer_briefing())
        return 0
    choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    if args.topic in choices:
        choices[args.topic].print_help()
        return 0
    return fail(f"no help topic {args.topic!r}; try `tiki help`, `tiki help peer` or `tiki help COMMAND`",
                ipc.EXIT_USAGE)


def cmd_doctor(args: argparse.Namespace) -> int:
    from ..doctor import run_checks

    checks = run_checks()
    if args.json:
        print_json({"checks": [{"status": status, "name": name, "detail": detail} for status, name, detail in checks]})
    else:
        for status, name, detail in checks:
            print(f"{status:<4}  {name}: {detail}")
    return 1 if any(status == "FAIL" for status, _, _ in checks) else 0


__all__ = ["add_commands", "print_json"]
