"""Screen fidelity against tmux (issue 11): every screen of the fidelity scenarios.

Real programs (vim, less, python's REPL, htop, Codex CLI, Claude Code, vttest's menus and test
screens, nano, dialog, tig, git log, man, ncdu: each skipped, saying so, when not installed)
run in a tikitaka tab (`tiki serve`) and in a tmux pane of the same size (80x24), get the same
keys (`tiki terminal-key` / `terminal-send --literal`, `tmux send-keys`), and their screens are
compared cell by cell: characters, and characters with the attributes tmux's `capture-pane -e`
shows. Prints one row per screen and the lowest share.

    python fidelity.py [NAME ...]     (only the scenarios whose name contains NAME)
    python fidelity.py --show         (also print the rows that differ)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fidelity_scenarios as scenarios  # noqa: E402
from fidelity import Pair  # noqa: E402

BIN = Path(sys.executable).parent
COLS, ROWS = 80, 24


def start_host(work: Path) -> tuple[subprocess.Popen, dict[str, str]]:
    env = scenarios.environment(work, dict(os.environ))
    env.update(TIKI_SOCKET=str(work / "s"), TIKI_CONFIG_DIR=str(work / "cfg"), TIKI_STATE_DIR=str(work / "st"),
               PATH=f"{BIN}:{env.get('PATH', '')}")
    (work / "cfg").mkdir()
    (work / "cfg" / "config.toml").write_text(f"[terminal]\ncols = {COLS}\nrows = {ROWS}\n")
    (work / "ws.toml").write_text('[[tab]]\nname = "idle"\ncommand = ["sleep", "100000"]\n')
    proc = subprocess.Popen([str(BIN / "tiki"), "serve", "--workspace", str(work / "ws.toml")], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--show", action="store_true", help="print the rows that differ")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tkfid-"))
    proc, env = start_host(work)

    def tiki(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "tiki"), *argv], env=env, capture_output=True, text=True, timeout=60)

    deadline = time.monotonic() + 20
    while tiki("terminal-list").returncode != 0:
        if time.monotonic() > deadline:
            raise SystemExit("tiki serve did not start")
        time.sleep(0.1)
    pair = Pair(tiki, env, work, COLS, ROWS)
    scores = []
    print(f"{'screen':44} {'chars':>8} {'+attrs':>8}  cursor")
    try:
        for scenario in scenarios.ALL:
            if args.names and not any(n in scenario.name for n in args.names):
                continue
            if not scenario.available():
                print(f"(skipped {scenario.name}: {scenario.needs or scenario.argv[0]} is not installed)")
                continue
            for score in scenarios.run(pair, scenario, work):
                scores.append(score)
                print(f"{score.screen:44} {score.chars:8.2%} {score.full:8.2%}  {'same' if score.cursor_same else 'DIFF'}")
                if args.show and score.full < 1:
                    print(score.report())
    finally:
        pair.close()
        tiki("shutdown")
        proc.wait(15)
    if scores:
        worst = min(scores, key=lambda s: s.full)
        below = [s.screen for s in scores if s.full < 0.99]
        print(f"\n{len(scores)} screens; lowest {worst.full:.2%} ({worst.screen}); below 99%: {below or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
