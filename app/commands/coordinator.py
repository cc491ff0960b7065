"""`tiki ask`, `reset`, `cancel` and `status`: the coordinator (and the host's health) from the
command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...protocol import ipc, ops
from ..agent_progress import Printer, safe, unasked_text
from ..output import fail, json_option, print_json, request, show


def add_commands(sub: Any) -> None:
    p = sub.add_parser("ask", help="run the coordinator on a request (or relay `@Name ...` to a peer tab); "
                                   "progress on stderr, answer on stdout")
    p.add_argument("prompt", nargs="+", help="words are joined with spaces; `@Claude what is 6 times 7?` asks the "
                                             "Claude tab directly, with no model")
    p.add_argument("--new", action="store_true", help="start a new coordinator session first (as `tiki reset`)")
    p.add_argument("--allow-shell", action="store_true",
                   help="let the coordinator type into shell tabs for this run (it cannot ask you here)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    json_option(p, "print the run's final result as JSON instead of the answer alone: kind, run_id, message, "
                   "turns, tokens, seconds, unasked")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("reset", help="start a new coordinator session: it forgets the conversation and the peers' "
                                     "handshakes (a running request is cancelled)")
    json_option(p, 'print the host\'s answer as JSON: {"reset": true}')
    p.set_defaults(func=cmd_reset)

    p = sub.add_parser("cancel", help="cancel the coordinator's current run (or the run RUN_ID, even if queued)")
    p.add_argument("run_id", nargs="?", metavar="RUN_ID", help="a run id from `tiki log` (default: the current run)")
    json_option(p, 'print the host\'s answer as JSON: {"cancelled": true|false}')
    p.set_defaults(func=cmd_cancel)

    p = sub.add_parser("status", help="backend, model, coordinator state, peers, handshakes, the attached UIs and the host's health")
    p.add_argument("--json", action="store_true", help="machine-readable output, with a `health` entry per service")
    p.set_defaults(func=cmd_status)


def cmd_ask(args: argparse.Namespace) -> int:
    printer = None if args.quiet else Printer(sys.stderr, sys.stderr.isatty())
    request_args = ops.Ask(prompt=" ".join(args.prompt), allow_shell=args.allow_shell)
    if args.new:
        request_args["new"] = True
    try:
        code, result = request(ops.AGENT_ASK, request_args, timeout=None, on_event=printer)
    finally:
        if printer is not None:
            printer.close()
    if code:
        return code
    if result["kind"] == "done":
        if args.json:  # the run's final event, as the host sent it
            print_json(result)
        else:
            # The answer may be a peer's words: on a terminal, its escape sequences would drive the
            # user's terminal (retitle, clear, remap keys), so they are shown, not obeyed. Into a
            # pipe or a file it is data for a program: kept exactly as it came.
            print(safe(result["message"]) if sys.stdout.isatty() else result["message"])
        if (warning := unasked_text(result)) is not None:  # (on stderr: stdout is the answer alone)
            print(f"tiki: {warning}", file=sys.stderr)
        return 0
    # (under --json the run's final event is the error's details: its run_id, reason, figures)
    error = result.get("code") or ipc.REFUSED
    return fail(f"the coordinator did not finish: {result['reason']}", ipc.exit_code_for(error), error,
                result)  # (a peer that did not reply in time: 4)


def cmd_reset(args: argparse.Namespace) -> int:
    code, result = request(ops.AGENT_RESET)
    if code:
        return code
    show(args, result, "new coordinator session: the conversation and the peers' handshakes are forgotten")
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    code, result = request(ops.AGENT_CANCEL, ops.RunCancel(run_id=args.run_id))
    if code == 0:
        running = "the current run" if args.run_id is None else f"run {args.run_id}"
        show(args, result, f"cancelled {running}" if result["cancelled"] else
             "nothing running to cancel" if args.run_id is None else f"run {args.run_id} will not start")
    return code


def cmd_status(args: argparse.Namespace) -> int:
    code, result = request(ops.AGENT_STATUS)
    if code:
        return code
    code, info = request(ops.HOST_INFO)
    if code:
        return code
    result["health"] = info.pop("health")  # the host's, for every service
    result["host"] = info
    if args.json:
        print_json(result)
        return 0
    print(f"host: pid {info['pid']}, socket {info['socket']}, {info['tabs']} tab{'s' if info['tabs'] != 1 else ''}"
          + (f", workspace {info['workspace']}" if info["workspace"] else ""))
    for line in ui_lines(info.get("uis")):
        print(line)
    coordinator = result["coordinator"]
    print(f"backend: {result['backend']}  model: {result['model']}")
    if result.get("backend_note"):
        print(f"  {result['backend_note']}")
    print(f"coordinator: {coordinator['state']}, {coordinator['queued']} queued" + (
        f", {coordinator['turns']} turns in the current run" if coordinator["state"] == "running" else
        f", last run: {coordinator['last_turns']} turns" if coordinator.get("last_turns") else ""))
    for name, peer in result["peers"].items():
        print(f"peer {name}: {peer['handshake']}")
    for line in health_lines(result.get("health") or {}):
        print(line)
    return 0


def ui_lines(uis: list[dict[str, Any]] | None) -> list[str]:
    """`UIs: none attached`, or a line per attached UI: its terminal, size, tab, when it came
    and was last used, and whether it was used last (a tab several UIs show takes that one's
    size). None: a host from before `uis` says nothing of them."""
    if uis is None:
        return []
    if not uis:
        return ["UIs: none attached (`tiki` attaches one)"]
    lines = [f"UIs: {len(uis)} attached"]
    for ui in uis:
        size = "x".join(map(str, ui["size"])) if ui["size"] else "size not told yet"
        showing = f"showing {ui['tab']}" if ui["tab"] else "showing no tab"
        who = ", ".join(part for part in (ui["tty"], f"pid {ui['pid']}" if ui["pid"] else ui["client"]) if part)
        lines.append(f"  {who}: {size}, {showing}; attached {_for(ui['attached_s'])} ago, used {_for(ui['idle_s'])} ago"
                     + (" (used last: a tab it shows with others takes its size)" if ui["latest"] else ""))
    return lines


def _for(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min"
    return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:.0f} min"


def health_lines(health: dict[str, Any]) -> list[str]:
    """`health: all services ok`, or one line per service that failed at some point."""
    troubled = {name: h for name, h in health.items() if h["state"] != "ok" or h["failures"]}
    if not troubled:
        return [f"health: all services ok ({len(health)})"]
    lines = []
    for name, h in troubled.items():
        if h["state"] == "failed":
            what = "FAILED"
        elif h["restarts"]:
            what = f"restarted {h['restarts']} time{'s' if h['restarts'] != 1 else ''}"
        else:
            what = f"{h['failures']} failure{'s' if h['failures'] != 1 else ''}"
        lines.append(f"health: {name}: {what}; last error: {h['last_error']}")
    return lines


def agent_doctor_checks(settings: Any) -> list[tuple[str, str, str]]:
    """The backend the coordinator would use and whether it can answer: (status, name, detail)
    with status ok / FAIL / info (info never fails the doctor). The LLM client is imported
    here, never on the CLI's fast path."""
    from ...actors.coordinator.backends.choice import backend_problem, choose, embedded_available
    from ...actors.coordinator.backends.ollama import OllamaBackend

    name, note = choose(settings)
    checks = [("ok", "backend", f"{name}" + (f" ({note})" if note else f" ({settings.backend} in config)"))]
    if name == "openai":
        problem = backend_problem(settings, "openai")
        detail = f"{settings.base_url} with model {settings.model}, context {settings.num_ctx} tokens"
        return checks + [("FAIL", "openai", problem) if problem else ("ok", "openai", detail)]
    backend = OllamaBackend(settings)
    reachable, models, detail = backend.probe()
    if name == "ollama":
        checks.append(("ok" if reachable else "FAIL", "ollama", detail))
        present, model_detail = backend.model_check(models) if reachable else (False, "cannot check: Ollama is not reachable")
        checks.append(("ok" if present else "FAIL", "model", model_detail))
        checks.append(("info", "embedded", "llama-cpp-python installed (used when backend = \"embedded\")"
                       if embedded_available() else "not installed (optional): pip install 'tikitaka[embedded]'"))
    else:
        checks.append(("info", "ollama", f"{detail} (not used: the backend is embedded)"))
        problem = backend_problem(settings, "embedded")
        if problem:
            checks.append(("FAIL", "embedded", problem))
        else:
            gguf = settings.gguf_path or "the bundled Gemma 3 270M (a toy: it proves the plumbing)"
            from ...actors.coordinator.backends.cores import physical_cores

            threads = settings.threads or physical_cores()
            checks.append(("ok", "embedded", f"llama.cpp in process, model {gguf}, context {settings.num_ctx} tokens, "
                                             f"{threads} threads"))
    return checks
