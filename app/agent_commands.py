"""`tiki ask` and `tiki status`: the coordinator from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .output import print_json, request


def add_commands(sub: Any) -> None:
    p = sub.add_parser("ask", help="run the coordinator on a request; progress on stderr, answer on stdout")
    p.add_argument("prompt", nargs="+", help="words are joined with spaces")
    p.add_argument("--allow-shell", action="store_true",
                   help="let the coordinator type into shell tabs for this run (it cannot ask you here)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("status", help="backend, model, coordinator state, peers, handshakes and the host's health")
    p.add_argument("--json", action="store_true", help="machine-readable output, with a `health` entry per service")
    p.set_defaults(func=cmd_status)


def describe(event: dict[str, Any]) -> str | None:
    kind = event.get("kind")
    if kind == "thinking":
        return f"… thinking (turn {event['turn']})"
    if kind == "tool_start":
        return f"→ {event['tool']} {json.dumps(event['args'], ensure_ascii=False)}"
    if kind == "tool_end":
        result = json.dumps(event["result"], ensure_ascii=False)
        return f"← {event['tool']} ({event['duration']:.2f} s) {result[:300]}"
    if kind == "correction":
        return f"! correction: {event['message']}"
    if kind == "consent_needed":
        return f"? consent needed to type into shell tab {event['tab']}"
    return None


def cmd_ask(args: argparse.Namespace) -> int:
    state = {"tokens": 0}

    def on_event(event: dict[str, Any]) -> None:
        if args.quiet:
            return
        if event.get("kind") == "generating":
            state["tokens"] = event["tokens"]
            return
        line = describe(event)
        if line:
            print(line, file=sys.stderr, flush=True)

    code, result = request("agent.ask", {"prompt": " ".join(args.prompt), "allow_shell": args.allow_shell},
                           timeout=None, on_event=on_event)
    if code:
        return code
    if result["kind"] == "done":
        print(result["message"])
        return 0
    print(f"tiki: the coordinator did not finish: {result['reason']}", file=sys.stderr)
    return 1


def cmd_status(args: argparse.Namespace) -> int:
    code, result = request("agent.status")
    if code:
        return code
    if args.json:
        print_json(result)
        return 0
    coordinator = result["coordinator"]
    print(f"backend: {result['backend']}  model: {result['model']}")
    if result.get("backend_note"):
        print(f"  {result['backend_note']}")
    print(f"coordinator: {coordinator['state']}, {coordinator['queued']} queued, {coordinator['turns']} turns in the current run")
    for name, peer in result["peers"].items():
        print(f"peer {name}: {peer['handshake']}")
    for line in health_lines(result.get("health") or {}):
        print(line)
    return 0


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
    from ..actors.coordinator.backends.choice import backend_problem, choose, embedded_available
    from ..actors.coordinator.backends.ollama import OllamaBackend

    name, note = choose(settings)
    checks = [("ok", "backend", f"{name}" + (f" ({note})" if note else f" ({settings.backend} in config)"))]
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
            checks.append(("ok", "embedded", f"llama.cpp in process, model {gguf}, context {settings.num_ctx} tokens"))
    return checks
