"""The CLI's fast path stays fast: `tiki ask` and friends import no Textual, no LLM client, no
pydantic and no pykka (they cost hundreds of milliseconds per command)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("textual", "ollama", "httpx", "pydantic", "pykka", "openai", "llama_cpp")


def test_the_cli_modules_import_nothing_heavy():
    code = ("import sys; import tikitaka.app.cli as cli; cli.build_parser(); "
            "import tikitaka.app.agent_progress, tikitaka.app.commands.coordinator; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", f"the CLI imported {out.stdout.strip()}"


def test_the_ui_loads_no_markdown_until_a_dialog_shows_it():
    """Every `tiki` start loads the UI; Textual's Markdown widget (markdown-it, ~35 ms of a
    ~350 ms warm attach: bench/startup.py) is for the help, which most starts never open."""
    code = ("import sys; import tikitaka.app.tui.main; "
            "print(sorted(m for m in ('markdown_it', 'textual.widgets._markdown') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", f"the UI imported {out.stdout.strip()} at start"
