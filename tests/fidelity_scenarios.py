"""The programs and keystrokes of the fidelity suite: each scenario starts one program, and
each `snap` step is a screen compared between tikitaka and tmux.

Steps: ("type", text) types text key by key; ("key", name, ...) presses named keys;
("wait", text) waits until text is on both screens; ("snap", label) compares the screens.
`FAST` are the scenarios the test suite runs; bench/fidelity.py runs `ALL`.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

NOTES = "\n".join([
    "Fidelity notes: plain ASCII, then wider things.",
    "\tA tab, then text after it.",
    "Accents: café, naïve, Ångström; decomposed: cafe\u0301.",
    "Korean 한국어 텍스트, Japanese 日本語, Chinese 中文 mixed with ASCII.",
    "Emoji: 😀 👍🏽 👨\u200d👩\u200d👧 ❤\ufe0f 🇯🇵 ok; jamo \u1100\u1161; Devanagari \u0915\u094d\u0937 end.",
    "A long line that wraps: " + " ".join(f"word{i}" for i in range(40)),
    *[f"line {i:03d} of the notes, with some filler text to read" for i in range(4, 60)],
]) + "\n"

COLOURS = NOTES.splitlines()[3] + "\n" + NOTES.splitlines()[4] + "\n" + "\n".join(
    f"\x1b[{31 + i % 7}mcolour line {i}\x1b[0m plain \x1b[1mbold\x1b[0m \x1b[4munder\x1b[0m "
    f"\x1b[38;5;{i % 256}mindexed\x1b[0m \x1b[48;5;{(i * 7) % 256}mbg\x1b[0m needle-{i % 13}"
    for i in range(200)) + "\n"

HTOPRC = """htop_version=3.2.2
config_reader_min_version=3
fields=0 48 17 18 38 39 40 2 46 47 49 1
hide_kernel_threads=1
hide_userland_threads=1
show_program_path=0
highlight_base_name=0
color_scheme=0
delay=100
header_layout=two_50_50
column_meters_0=Hostname
column_meter_modes_0=2
column_meters_1=Blank
column_meter_modes_1=2
tree_view=0
"""


@dataclass
class Scenario:
    name: str
    argv: list[str]
    steps: list[tuple]
    needs: str = ""
    files: dict[str, str] = field(default_factory=dict)

    def available(self) -> bool:
        return shutil.which(self.needs or self.argv[0]) is not None


def write_files(scenario: Scenario, workdir: Path) -> None:
    for name, text in scenario.files.items():
        path = workdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


VIM = Scenario("vim", ["vim", "--clean", "-n", "notes.txt"], [
    ("wait", "Fidelity notes"), ("snap", "vim: a file"),
    ("type", ":set number"), ("key", "enter"), ("snap", "vim: :set number"),
    ("key", "G"), ("type", "onew line 한국어 é"), ("key", "esc"), ("snap", "vim: inserted a line"),
    ("type", ":split"), ("key", "enter"), ("snap", "vim: split"),
    ("type", "/word1"), ("key", "enter"), ("snap", "vim: search"),
    ("type", ":syntax on"), ("key", "enter"), ("type", ":set ft=python"), ("key", "enter"), ("snap", "vim: syntax"),
    ("type", ":q!"), ("key", "enter"), ("type", ":q!"), ("key", "enter"),
], files={"notes.txt": NOTES})

LESS = Scenario("less", ["less", "-R", "colours.txt"], [
    ("wait", "colour line 0"), ("snap", "less: colours"),
    ("key", "space"), ("snap", "less: next page"),
    ("type", "/needle-7"), ("key", "enter"), ("snap", "less: search"),
    ("key", "G"), ("snap", "less: end"),
    ("type", "q"),
], files={"colours.txt": COLOURS})

PYTHON = Scenario("python REPL", [sys.executable, "-q"], [
    ("wait", ">>>"),
    ("type", "print('hello', 6 * 7)"), ("key", "enter"),
    ("type", "for i in range(30): print(i, '한' * (i % 5), 'x' * i)"), ("key", "enter", "enter"),
    ("snap", "python: a loop scrolled"),
    ("type", "sorted({'b': 2, 'a': 1}.items())"), ("key", "enter"), ("key", "up"), ("snap", "python: history"),
    ("key", "ctrl+u"), ("type", "exit()"), ("key", "enter"),
])

HTOP = Scenario("htop", ["htop", "-d", "100", "-p", "1"], [
    ("wait", "F10Quit"), ("snap", "htop: main"),
    ("key", "f1"), ("snap", "htop: help"), ("key", "esc"),
    ("key", "f2"), ("snap", "htop: setup"), ("key", "esc"),
    ("key", "f10"),
], files={".config/htop/htoprc": HTOPRC})


def _vttest(menu: str, screens: int, label: str) -> Scenario:
    steps: list[tuple] = [("wait", "Choose test type"), ("type", menu), ("key", "enter")]
    for n in range(1, screens + 1):
        steps += [("snap", f"vttest {label} {n}"), ("key", "enter")]
    return Scenario(f"vttest {label}", ["vttest"], steps)


VTTEST_MENU = Scenario("vttest menu", ["vttest"], [("wait", "Choose test type"), ("snap", "vttest: main menu")])
VTTEST_CURSOR = _vttest("1", 6, "cursor movements")
VTTEST_SCREEN = _vttest("2", 14, "screen features")
# (Menu 3, character sets, is left out: vttest takes another path there depending on the
# terminal's DA answer -- tmux says VT100, tikitaka VT220 -- so the two programs differ.)
VTTEST_DOUBLE = _vttest("4", 8, "double-size")
VTTEST_VT102 = _vttest("8", 12, "VT102 insert/delete")

# Codex CLI's first screen (npm `@openai/codex`): a private HOME has no sign-in, and the
# sign-in menu runs offline. A Rust TUI (ratatui) drawing with cursor moves and 24-bit colour.
# `--no-daemon`: by default each run starts a background app server that outlives it. Each
# side has a CODEX_HOME of its own: two Codexes on one home race for its state database (under
# load one says "state db backfill is running" where the other draws its menu).
CODEX = Scenario("codex sign-in", ["sh", "-c", 'CODEX_HOME="$(mktemp -d ./codex-home.XXXXXX)" exec codex --no-daemon'], [
    ("wait", "Choose how you want to use Codex"), ("snap", "codex: sign-in menu"),
    ("key", "down"), ("wait", "> 2."), ("snap", "codex: second choice"),
    ("key", "down"), ("wait", "> 3."), ("snap", "codex: third choice"),
    ("key", "enter"), ("wait", "Sign in another way"), ("snap", "codex: another way"),
    # (Codex drops an Enter that comes within ~1 s of the keys before it: measured, 0.6 s is
    # dropped in tmux as well.)
    ("pause", 1.5), ("key", "enter"), ("wait", "Paste or type your API key below"), ("snap", "codex: API key box"),
    ("type", "sk-test-1234"), ("wait", "sk-test-1234"), ("snap", "codex: a key typed"),
    ("key", "esc"), ("wait", "Sign in another way"), ("snap", "codex: back"),
], needs="codex")

# Claude Code's start screen (npm `@anthropic-ai/claude-code`): offline, with a private HOME,
# it greets, checks that it can reach its service, says it cannot and exits. Run under `sh`:
# kept alive, as tmux marks a dead pane by scrolling its screen up a line for "Pane is dead";
# without TMUX, with which it writes its greeting in 256 colours rather than 24-bit.
CLAUDE = Scenario("claude start", ["sh", "-c", "unset TMUX TMUX_PANE; claude; exec sleep 100000"], [
    ("wait", "anthropic.com/supported-countries"), ("snap", "claude: start screen, offline"),
], needs="claude")

# Past the start screen, offline: with onboarding marked done in a private HOME (one per side),
# Claude Code asks whether to trust the folder (Enter: yes), then shows its input box -- the
# screens a user sees most, drawn with its own cursor moves, colours and box rules.
CLAUDE_INPUT = Scenario("claude input box", ["sh", "-c", (
    'unset TMUX TMUX_PANE; export HOME="$(mktemp -d ./claude-home.XXXXXX)"; '
    'printf \'{"hasCompletedOnboarding": true, "theme": "dark"}\' > "$HOME/.claude.json"; '
    'claude; exec sleep 100000')], [
    ("wait", "trust this folder"), ("snap", "claude: folder trust"),
    ("pause", 1.0), ("key", "enter"), ("wait", "for shortcuts"), ("snap", "claude: input box"),
    ("type", "what is 6 times 7"), ("wait", "what is 6 times 7"), ("snap", "claude: a prompt typed"),
], needs="claude")

# A shell script's standout, underline and strike-through, left on across line feeds and
# erases at the bottom of the screen (what terminals/pen.py mends).
DECORATIONS = "\n".join([
    "seq 30", "tput smso; echo WARNING; tput rmso", "tput smul; echo Title; tput rmul",
    r"printf '\033[9mgone\n\033[29m'", r"printf '\033[7;31mred\033[K\n\033[0m'",
    r"printf '\033[4mwide\033[2X\033[3@x\n\033[24m'", r"tput rev; printf 'bar\n\n'; tput sgr0",
    "echo decorations-done"]) + "\n"
SHELL = Scenario("shell decorations", ["sh", "-c", "sh decorations.sh; exec sleep 100000"], [
    ("wait", "decorations-done"), ("snap", "shell: tput smso, smul, strike-through at the bottom"),
], files={"decorations.sh": DECORATIONS})

NANO = Scenario("nano", ["nano", "-I", "notes.txt"], [  # (-I: no nanorc, whose locking makes the 2nd side ask)
    ("wait", "Fidelity notes"), ("snap", "nano: a file"),
    ("key", "ctrl+w"), ("type", "word1"), ("key", "enter"), ("snap", "nano: search"),
    ("type", "inserted 한국어 é"), ("snap", "nano: typed"),
    ("key", "ctrl+g"), ("snap", "nano: help"), ("key", "ctrl+x"), ("key", "ctrl+x"), ("type", "n"),
], files={"notes.txt": NOTES})

# ncurses boxes drawn with the line-drawing set, a menu, a checklist and a question, as shell
# scripts ask with dialog(1).
DIALOG = Scenario("dialog", ["sh", "-c", (
    "dialog --menu 'Pick one 한국어' 15 50 6 a 'Apple pie' b 'Banana split' c 'Cherry 中文' d Date; "
    "dialog --checklist Choose 15 50 5 1 one on 2 two off 3 three on; dialog --yesno 'Really? é' 7 40; "
    "exec sleep 100000")], [
    ("wait", "Pick one"), ("snap", "dialog: menu"), ("key", "down"), ("key", "down"), ("snap", "dialog: menu moved"),
    ("key", "enter"), ("wait", "Choose"), ("snap", "dialog: checklist"), ("key", "space"), ("snap", "dialog: toggled"),
    ("key", "enter"), ("wait", "Really"), ("snap", "dialog: yesno"), ("key", "enter"),
], needs="dialog")

# A git history with a merge, in a repository of each side's own (fixed dates: the same hashes).
GIT_REPO = ("export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z; "
            'cd "$(mktemp -d ./repo.XXXXXX)" && git init -q && git config user.email a@b && git config user.name A && '
            "for i in 1 2 3 4 5 6; do printf 'line %s 한국어\\n' $i >> f.txt; git add f.txt; "
            'git commit -qm "commit $i: café"; done && git checkout -qb side && echo side >> f.txt && '
            "git commit -qam side && git checkout -q - && echo main >> g.txt && git add g.txt && "
            "git commit -qm main && git merge -q --no-edit side && ")
TIG = Scenario("tig", ["sh", "-c", GIT_REPO + "exec tig --all"], [
    ("wait", "commit 1"), ("snap", "tig: main view"), ("key", "down"), ("key", "enter"), ("pause", 1.0),
    ("snap", "tig: diff"), ("key", "q"), ("key", "q"),
], needs="tig")
GIT_LOG = Scenario("git log", ["sh", "-c", GIT_REPO + "git -c color.ui=always log --graph --decorate --stat; "
                                                  "exec sleep 100000"], [
    ("wait", "Merge branch"), ("snap", "git log --graph in less"), ("key", "G"), ("snap", "git log: end"), ("key", "q"),
], needs="git")
MAN = Scenario("man", ["man", "ls"], [
    ("wait", "NAME"), ("snap", "man ls"), ("key", "space"), ("snap", "man ls: page 2"), ("key", "q"),
], needs="man")
NCDU = Scenario("ncdu", ["ncdu", "/usr/share/doc"], [
    ("wait", "Total disk usage"), ("pause", 1.0), ("snap", "ncdu: listing"), ("key", "?"), ("snap", "ncdu: help"),
    ("key", "q"), ("key", "q"),
], needs="ncdu")

FAST = [VIM, LESS, PYTHON, SHELL, VTTEST_MENU, _vttest("8", 3, "VT102 insert/delete"), CODEX, CLAUDE, CLAUDE_INPUT,
        DIALOG]
ALL = [VIM, LESS, PYTHON, SHELL, HTOP, CODEX, CLAUDE, CLAUDE_INPUT, VTTEST_MENU, VTTEST_CURSOR, VTTEST_SCREEN,
       VTTEST_DOUBLE, VTTEST_VT102, NANO, DIALOG, TIG, GIT_LOG, MAN, NCDU]


def run(pair, scenario: Scenario, workdir: Path) -> list:
    """Run `scenario` on both sides of `pair`; the scores of its screens."""
    write_files(scenario, workdir)
    pair.start(re.sub(r"[^A-Za-z0-9_.-]+", "-", scenario.name)[:40], scenario.argv, workdir)
    scores = []
    try:
        for step in scenario.steps:
            kind, *args = step
            if kind == "type":
                pair.type(args[0])
            elif kind == "key":
                pair.key(*args)
            elif kind == "pause":
                time.sleep(args[0])
            elif kind == "wait":
                pair.wait_for(args[0])
            elif kind == "snap":
                scores.append(pair.score(args[0]))
    finally:
        pair.stop()
    return scores


def environment(workdir: Path, base: dict[str, str]) -> dict[str, str]:
    """The same environment for both sides: a private HOME, a UTF-8 locale, truecolor, no
    self-updates."""
    home = workdir
    env = {k: v for k, v in base.items() if not k.startswith(("TMUX", "LC_"))}
    # DISABLE_AUTOUPDATER: Claude Code's updater, offline, shows "Auto-updating..." and then
    # "Auto-update failed" on its own clock; a CI run caught the two sides at either.
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), LANG="C.UTF-8", COLORTERM="truecolor",
               PYTHONSTARTUP="", TERM="xterm-256color", DISABLE_AUTOUPDATER="1")
    os.makedirs(home / ".config", exist_ok=True)
    return env
