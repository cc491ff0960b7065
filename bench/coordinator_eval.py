"""Which model can coordinate on this machine? A fixed set of scenarios against a real `tiki
serve` host with scripted stand-in peers (tests/peer_standin.py), for any backend and model.

    python bench/coordinator_eval.py --backend embedded                      # the bundled toy
    python bench/coordinator_eval.py --backend embedded --gguf model.gguf
    python bench/coordinator_eval.py --backend ollama --model gemma4:e4b [--host http://...]
    python bench/coordinator_eval.py --backend openai --base-url http://127.0.0.1:8080/v1 --model m

Each scenario starts a new coordinator session and runs `tiki ask` as a user would. Per
scenario it prints: success (judged from the answer and the tabs, see eval_scenarios.py),
model turns, tool calls, seconds, tokens and how the run ended; then the success rate.
`--json FILE` writes the same as data.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from eval_scenarios import TABS, Seen, clean_env, scenarios, shell_lines, workspace  # noqa: E402

STANDIN = HERE.parent / "tests" / "peer_standin.py"
TIKI = str(Path(sys.executable).parent / "tiki")


def config(opts: argparse.Namespace) -> str:
    lines = ["[coordinator]", f'backend = "{opts.backend}"', f"max_turns = {opts.max_turns}",
             f"num_ctx = {opts.num_ctx}", f"threads = {opts.threads}", "relay_timeout = 30"]
    if opts.model:
        lines.append(f'model = "{opts.model}"')
    if opts.gguf:
        lines.append(f'gguf_path = "{Path(opts.gguf).expanduser().resolve()}"')
    if opts.host:
        lines.append(f'ollama_host = "{opts.host}"')
    if opts.base_url:
        lines.append(f'base_url = "{opts.base_url}"')
    if opts.api_key_env:
        lines.append(f'api_key_env = "{opts.api_key_env}"')
    return "\n".join(lines) + "\n"


class Host:
    def __init__(self, opts: argparse.Namespace) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tk-eval-"))
        self.env = clean_env(dict(os.environ))
        self.env.update(TIKI_SOCKET=str(self.dir / "s"), TIKI_CONFIG_DIR=str(self.dir / "config"),
                        TIKI_STATE_DIR=str(self.dir / "state"),
                        PATH=f"{Path(sys.executable).parent}{os.pathsep}{self.env.get('PATH', '')}")
        (self.dir / "config").mkdir()
        (self.dir / "config" / "config.toml").write_text(config(opts))
        (self.dir / "ws.toml").write_text(workspace(sys.executable, STANDIN))
        self.proc = subprocess.Popen([TIKI, "serve", "--workspace", str(self.dir / "ws.toml")], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.dir / "serve.log", "wb"))
        deadline = time.monotonic() + 30
        while "stand-in ready" not in self.read("Codex"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"tiki serve did not come up: {(self.dir / 'serve.log').read_text()[-2000:]}")
            time.sleep(0.2)

    def tiki(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TIKI, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def read(self, tab: str) -> str:
        result = self.tiki("terminal-read", tab, "--lines", "400")
        return result.stdout if result.returncode == 0 else ""

    def lines(self) -> dict[str, Counter]:
        screens = {tab: self.read(tab) for tab in TABS}
        got = {tab: [line for line in screen.splitlines() if line.startswith("got: ")] for tab, screen in screens.items()}
        got["sh"] = shell_lines(screens["sh"])
        return {tab: Counter(lines) for tab, lines in got.items()}

    def last_run(self) -> dict[str, Any]:
        files = sorted((self.dir / "state" / "transcripts").glob("runs-*.jsonl"))
        return json.loads(files[-1].read_text().splitlines()[-1]) if files else {}

    def close(self) -> None:
        if self.proc.poll() is None:
            self.tiki("shutdown")
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def run_scenario(host: Host, scenario: Any, marker: Path, timeout: float) -> dict[str, Any]:
    marker.unlink(missing_ok=True)
    host.tiki("reset")
    before = host.lines()
    args = ["ask", "--quiet"] + (["--allow-shell"] if scenario.allow_shell else []) + [scenario.prompt]
    started = time.monotonic()
    try:
        result = host.tiki(*args, timeout=timeout)
        answer = result.stdout.strip() if result.returncode == 0 else None
        ended = answer if answer is not None else result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "?"
    except subprocess.TimeoutExpired:  # the killed `tiki ask` closed its connection: the run is cancelled
        answer, ended = None, f"no end within {timeout:g} s"
    seconds = time.monotonic() - started
    time.sleep(0.5)  # let the last keystrokes reach the screens
    after = host.lines()
    got = {tab: list((after[tab] - before.get(tab, Counter())).elements()) for tab in after}
    record = host.last_run()
    turns = record.get("turns", [])
    calls = [t for t in turns if t.get("action") and t["action"]["tool"] != "done"]
    ok = scenario.judge(Seen(answer, got, marker))
    return {"scenario": scenario.name, "success": ok, "turns": len(turns), "tool_calls": len(calls),
            "corrections": sum(1 for t in turns if t.get("correction")),
            "invalid_calls": sum(1 for t in turns if t.get("cause") in ("not JSON", "invalid arguments", "unknown tool")),
            "tokens": sum(t.get("tokens") or 0 for t in turns), "seconds": round(seconds, 1),
            "outcome": ("done: " if answer is not None else "error: ") + ended.removeprefix(
                "tiki: the coordinator did not finish: ")[:70], "judged": scenario.about,
            "actions": [t["action"] for t in turns if t.get("action")]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("embedded", "ollama", "openai"), required=True)
    parser.add_argument("--model", help="model name (Ollama, or the OpenAI-compatible server's)")
    parser.add_argument("--gguf", help="GGUF file for --backend embedded (default: the bundled Gemma 3 270M toy)")
    parser.add_argument("--host", help="Ollama address (default OLLAMA_HOST or http://127.0.0.1:11434)")
    parser.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--api-key-env", help="environment variable holding the API key (default OPENAI_API_KEY)")
    parser.add_argument("--threads", type=int, default=0, help="embedded: llama.cpp threads (default: physical cores)")
    parser.add_argument("--max-turns", type=int, default=12, help="model turns per scenario (default 12)")
    parser.add_argument("--num-ctx", type=int, default=8192, help="context window in tokens (default 8192)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one scenario may take (default 600)")
    parser.add_argument("--only", help="comma-separated scenario names")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    opts = parser.parse_args(argv)
    host = Host(opts)
    marker = host.dir / "marker.txt"
    chosen = [s for s in scenarios(marker) if not opts.only or s.name in opts.only.split(",")]
    status = json.loads(host.tiki("status", "--json").stdout or "{}")
    print(f"coordinator eval · backend {status.get('backend')} · model {status.get('model')} · "
          f"num_ctx {opts.num_ctx} · max_turns {opts.max_turns}", flush=True)
    print(f"{'scenario':<15} {'ok':<4} {'turns':>5} {'tools':>5} {'fixes':>5} {'tokens':>7} {'seconds':>8}  outcome",
          flush=True)
    rows = []
    try:
        for scenario in chosen:
            row = run_scenario(host, scenario, marker, opts.timeout)
            rows.append(row)
            print(f"{row['scenario']:<15} {'yes' if row['success'] else 'no':<4} {row['turns']:>5} "
                  f"{row['tool_calls']:>5} {row['corrections']:>5} {row['tokens']:>7,} {row['seconds']:>8.1f}  "
                  f"{row['outcome']}", flush=True)
    finally:
        host.close()
    won = sum(r["success"] for r in rows)
    print(f"success: {won}/{len(rows)} ({100 * won / max(1, len(rows)):.0f}%) · {sum(r['turns'] for r in rows)} turns · "
          f"{sum(r['tool_calls'] for r in rows)} tool calls · {sum(r['tokens'] for r in rows):,} tokens · "
          f"{sum(r['seconds'] for r in rows):.0f} s")
    if opts.json:
        opts.json.write_text(json.dumps({"backend": status.get("backend"), "model": status.get("model"),
                                         "num_ctx": opts.num_ctx, "max_turns": opts.max_turns, "scenarios": rows},
                                        indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
