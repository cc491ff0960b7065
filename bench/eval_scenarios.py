"""The scenarios of `coordinator_eval.py`: what is asked, and how success is judged.

Success comes from the final answer and from side effects seen on the tabs (what the
stand-in peers received, a file the shell created), never from the model's own words about
what it did. The stand-ins (tests/peer_standin.py) print `got: ... text=<the message>` for
every message typed into them; Claude multiplies, Codex takes notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

TABS = ("sh", "Claude", "Codex")


@dataclass
class Seen:
    """What a judge sees: the answer (None when the run failed), and what each tab received
    during this scenario."""

    answer: str | None
    got: dict[str, list[str]]  # tab -> the `got:` lines that appeared during the scenario
    marker: Path


@dataclass
class Scenario:
    name: str
    prompt: str
    judge: Callable[[Seen], bool]
    allow_shell: bool = False
    about: str = ""


def _answer_has(seen: Seen, *words: str) -> bool:
    return seen.answer is not None and all(w.casefold() in seen.answer.casefold() for w in words)


def _received(seen: Seen, tab: str, *words: str) -> bool:
    return any(all(w in line for w in words) for line in seen.got.get(tab, []))


def scenarios(marker: Path) -> list[Scenario]:
    return [
        Scenario("ask-peer", "Ask Claude what 6 times 7 is and tell me the answer.",
                 lambda s: _received(s, "Claude", "6 times 7") and _answer_has(s, "42"),
                 about="Claude got the question and the answer says 42"),
        Scenario("shell-command", f"In the sh tab, run this command: touch {marker}",
                 lambda s: s.marker.exists(), allow_shell=True,
                 about="the file exists (typing into a shell with consent: --allow-shell)"),
        Scenario("relay-answer", "Ask Claude what 6 times 7 is, then tell Codex the answer.",
                 lambda s: _received(s, "Claude", "6 times 7") and _received(s, "Codex", "42"),
                 about="Claude got the question and Codex got 42"),
        Scenario("wrong-tab-name", "What does the tab called Cluade show? Read it and tell me.",
                 lambda s: _answer_has(s, "stand-in"),
                 about="the answer quotes the Claude tab's screen ('stand-in ready')"),
        Scenario("two-step", "Run echo $((6*7)) in the sh tab, then send the number it printed to Codex.",
                 lambda s: _received(s, "sh", "echo") and _received(s, "Codex", "42"), allow_shell=True,
                 about="the shell ran it and Codex got 42"),
        Scenario("which-tabs", "Which tabs are open?",
                 lambda s: _answer_has(s, "sh") and _answer_has(s, "Claude") and _answer_has(s, "Codex"),
                 about="the answer names sh, Claude and Codex"),
    ]


def shell_lines(screen: str) -> list[str]:
    """What was typed into the shell, as `got:`-like lines (the shell echoes commands)."""
    return [line for line in screen.splitlines() if "echo" in line or "touch" in line]


def workspace(python: str, standin: Path) -> str:
    def peer(name: str, *args: str) -> str:
        command = ", ".join(f'"{part}"' for part in (python, str(standin), *args))
        return f'[[tab]]\nname = "{name}"\ncommand = [{command}]\nrole = "peer"\n'

    shell = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile", "-i"]\nrole = "shell"\n'
    # realistic timing: a peer thinks a little before it answers
    return shell + peer("Claude", "--delay", "1.5") + peer("Codex", "--persona", "codex", "--delay", "2")


def clean_env(base: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if not k.startswith(("TIKI_", "TMUX"))}
    env["PS1"] = "$ "  # a plain prompt, whatever the shell that started us
    return env


__all__ = ["Scenario", "Seen", "TABS", "scenarios", "shell_lines", "workspace", "clean_env"]
