"""Rules files: the user's overrides change what the bundled rules decide; broken files say why.

The overrides live where a user puts them (`<config dir>/agents/`, here TIKI_CONFIG_DIR) and are
judged by their effect on a real captured screen drawn into the real emulator.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_agent_state import NOW, load_capture

from tikitaka.terminals.agent_state import AgentStateDetector, ScreenFacts, screen_facts
from tikitaka.terminals.agent_state_kind import AI_CLIS
from tikitaka.terminals.agent_state_rules import AgentRulesError, bundled_dir, load_rulebook, user_dir


@pytest.fixture
def user_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIKI_CONFIG_DIR", str(tmp_path / "config"))
    directory = user_dir()
    directory.mkdir(parents=True)
    return directory


def verdict(name: str, command: list[str], rulebook=None):
    screen, _ = load_capture(name)
    facts = screen_facts(screen, now=NOW, last_output_at=NOW - 30, started_at=NOW - 60, command=command)
    return AgentStateDetector(rulebook or load_rulebook()).evaluate(facts)


def test_the_user_directory_is_the_config_directory(user_rules: Path):
    assert user_rules.parent.name == "config" and user_rules.name == "agents"
    assert verdict("claude_idle_80x24", ["claude"])[:2] == ("idle", "input-box")  # nothing there yet


def test_a_user_rule_of_the_same_name_replaces_the_bundled_one_where_it_stands(user_rules: Path):
    (user_rules / "claude.toml").write_text(
        '[[rule]]\nname = "input-box"\nstate = "waiting"\nregion = "bottom:8"\nmatch = "for shortcuts"\n')
    result = verdict("claude_idle_80x24", ["claude"])
    assert result[:2] == ("waiting", "input-box") and "? for shortcuts" in result.evidence
    # everything else is still the bundled rules, in their order
    assert verdict("claude_permission_80x24", ["claude"])[:2] == ("waiting", "choice-menu")
    names = [r.name for r in load_rulebook().profiles["claude"].rules]
    assert names == [r.name for r in load_rulebook(user=Path("/nonexistent")).profiles["claude"].rules]


def test_new_user_rules_go_first_unless_placed_and_disabled_ones_are_gone(user_rules: Path):
    (user_rules / "codex.toml").write_text(
        '[[rule]]\nname = "mine"\nstate = "unknown"\ntitle = "never-shown"\n\n'
        '[[rule]]\nname = "late"\nstate = "idle"\nafter = "composer"\ntitle = "x"\n\n'
        '[[rule]]\nname = "approval-title"\ndisabled = true\n')
    names = [r.name for r in load_rulebook().profiles["codex"].rules]
    assert names[:2] == ["mine", "exited"] and "approval-title" not in names
    assert names[names.index("composer") + 1] == "late"
    # without its title rule the approval is still seen, by the dialog's own words
    assert verdict("codex_approval_120x40", ["codex"])[:2] == ("waiting", "approval-dialog")


def test_agent_keys_merge_one_by_one_and_replace_rules_starts_afresh(user_rules: Path):
    (user_rules / "aider.toml").write_text(
        '[agent]\ncommands = ["my-aider"]\nreplace_rules = true\n\n'
        '[[rule]]\nname = "always"\nstate = "working"\n')
    profile = load_rulebook().profiles["aider"]
    assert profile.commands == ("my-aider",) and profile.name == "aider"  # name kept from the bundle
    assert profile.signature is not None and [r.name for r in profile.rules] == ["always"]
    assert verdict("aider_idle_120x40", ["my-aider"])[:2] == ("working", "always")
    assert profile.sources == (str(bundled_dir() / "aider.toml"), str(user_rules / "aider.toml"))


def test_a_user_file_with_a_new_name_adds_a_kind(user_rules: Path):
    (user_rules / "opencode.toml").write_text(
        '[agent]\nname = "OpenCode"\ncommands = ["opencode"]\n\n'
        '[[rule]]\nname = "ask"\nstate = "idle"\nregion = "bottom:5"\nmatch = "Ask anything"\n')
    rulebook = load_rulebook()
    assert rulebook.identify(["npx", "opencode-ai@latest"]) is None
    assert rulebook.identify(["/usr/local/bin/opencode"]) == "opencode"
    facts = ScreenFacts(["", "  Ask anything"], now=NOW, last_output_at=NOW, command=["opencode"])
    assert AgentStateDetector(rulebook).evaluate(facts)[:2] == ("idle", "ask")


@pytest.mark.parametrize("content, expected", [
    ('[[rule]\nname = "x"', ["claude.toml", "not valid TOML"]),
    ('[[rule]]\nname = "spin"\nstate = "working"\nmatch = "(unclosed"', ["claude.toml", "rule #1 ('spin')", "not a valid regex", "(unclosed"]),
    ('[[rule]]\nname = "spin"\nstate = "busy"\ntitle = "x"', ["rule #1 ('spin')", "'busy' is not a state", "working"]),
    ('[[rule]]\nname = "spin"\nstate = "working"\nmtach = "x"', ["unknown key 'mtach'", "did you mean 'match'"]),
    ('[[rule]]\nname = "spin"\nstate = "working"\nregion = "bottom"\nmatch = "x"', ["region = 'bottom'", "bottom:N"]),
    ('[[rule]]\nname = "spin"\nstate = "working"\nquiet_for = "2s"', ["quiet_for must be a number of seconds"]),
    ('[[rule]]\nname = "spin"\nstate = "working"\nbefore = "nope"', ["no rule named 'nope'", "choice-menu"]),
    ('[[rule]]\nstate = "working"', ["rule #1", "needs name"]),
    ('[agent]\ncommand = ["x"]', ["[agent]", "unknown key 'command'", "did you mean 'commands'"]),
    ('[[rule]]\nname = "gone"\ndisabled = true', ["disables a rule that does not exist"]),
])
def test_a_broken_user_file_is_refused_with_file_rule_and_fix(user_rules: Path, content: str, expected: list[str]):
    (user_rules / "claude.toml").write_text(content)
    with pytest.raises(AgentRulesError) as error:
        load_rulebook()
    message = str(error.value)
    assert str(user_rules / "claude.toml") in message
    for piece in expected:
        assert piece in message


def test_loaded_leniently_a_broken_user_file_keeps_the_bundled_rules_and_the_error(user_rules: Path):
    (user_rules / "claude.toml").write_text('[[rule]]\nname = "spin"\nstate = "working"\nmatch = "(unclosed"')
    (user_rules / "codex.toml").write_text('[[rule]]\nname = "mine"\nstate = "unknown"\nalt_screen = true\n')
    rulebook = load_rulebook(strict=False)
    assert len(rulebook.errors) == 1 and "claude.toml" in rulebook.errors[0]
    assert verdict("claude_permission_80x24", ["claude"], rulebook)[:2] == ("waiting", "choice-menu")
    assert verdict("codex_idle_120x40", ["codex"], rulebook)[:2] == ("unknown", "mine")  # the good file counts


@pytest.mark.parametrize("command, kind", [
    (["claude"], "claude"), (["/home/u/.local/bin/claude"], "claude"), (["claude.exe", "--resume"], "claude"),
    (["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"], "claude"),
    (["npx", "-y", "@openai/codex@latest"], "codex"), (["env", "OPENAI_API_KEY=x", "codex"], "codex"),
    (["uv", "run", "aider", "--model", "x"], "aider"), (["python3", "-m", "aider"], "aider"),
    (["uvx", "aider-chat"], "aider"), (["agy"], "antigravity"), (["bunx", "@google/gemini-cli"], "gemini"),
    (["bash", "-l"], "shell"), (["vim", "claude.txt"], None), (["node", "server.js"], None), ([], None),
])
def test_the_command_names_the_kind_through_wrappers(command: list[str], kind: str | None):
    assert load_rulebook(user=Path("/nonexistent")).identify(command) == kind


def test_the_substring_pre_check_never_changes_what_a_regex_finds():
    """Every bundled pattern on every captured screen: the pre-checked search agrees with `re`."""
    from test_agent_state import CAPTURES

    from tikitaka.terminals.agent_state_match import Matcher

    rulebook = load_rulebook(user=Path("/nonexistent"))
    patterns = [m for p in rulebook.profiles.values() for r in p.rules for m in (*r.match, *r.not_match, r.title, r.notification) if m]
    patterns += [p.signature for p in rulebook.profiles.values() if p.signature]
    texts = [load_capture(name)[0].text(60) for name in CAPTURES] + ["", "ABC (i:x)", "Do you want to go? ❯ 1. ok"]
    skipped = 0
    for matcher in patterns:
        skipped += sum(1 for text in texts if matcher.needs and matcher.search(text) is None)
        for text in texts:
            assert bool(matcher.search(text)) == bool(matcher.pattern.search(text)), (matcher, text[:80])
    assert skipped > len(patterns)  # and it does skip work
    for source, text in (("(?i:abc)d", "ABCd"), ("(?i)xyz", "XYZ"), ("a(?:b|c)d", "acd"), ("(?:ab)?cd", "cd")):
        assert Matcher(source).search(text), source


def test_every_agent_the_bundled_rules_name_is_an_ai_cli_whose_tab_is_a_peer():
    """One list says which programs are AI CLIs (a tab's default role); the rules files name
    programs too: each of theirs must be on it, or its tab would be a shell tab."""
    book = load_rulebook(user=Path("/nonexistent"))
    named = {name for kind, profile in book.profiles.items() if kind != "shell" for name in profile.commands}
    assert named and named <= AI_CLIS, named - AI_CLIS


@pytest.mark.parametrize("line, in_front, reading, expected", [
    ("", False, False, ("working", "job")),  # a command runs, quiet: working, not idle
    ("What is your name? ", False, "epoll", ("idle", "listens-terminal")),  # Node's readline, quiet 2 s
    ("", False, "epoll", ("working", "job")),  # no question: a quiet build in `docker exec -it`
    ("", False, "epoll, printing", ("working", "recent-output")),  # a program at work that takes keys
    ("Name? ", True, "epoll", ("idle", "quiet")),  # (the tab's own program: no job)
    ("", False, True, ("idle", "reads-terminal")),  # `cat`, `bc`, a `read` with no prompt: waiting to be typed to
    ("", False, "read, printing", ("working", "recent-output")),  # it reads the terminal and prints (Go's main thread)
    ("", False, None, ("working", "job")),  # (where /proc cannot say)
    ("", None, None, ("idle", "quiet")),  # where the foreground cannot be known, the job rule never holds
    ("", True, None, ("idle", "quiet")),
    ("(Pdb) ", False, False, ("idle", "prompt")),  # a debugger waits for its user
    ("version: (1.0.0) ", False, True, ("idle", "prompt")),  # npm init's questions
    ("Branch to merge: ", False, True, ("idle", "prompt")),  # a script's `read -p`
    ("[sudo] password for ann: ", False, True, ("waiting", "question")),
])
def test_a_shell_tab_with_a_command_in_front_is_working_unless_it_waits_for_input(line, in_front, reading, expected):
    rows = ["ann@box:~/app$ make", line]
    listening = isinstance(reading, str) and reading.startswith("epoll")  # an event loop that watches the terminal
    quiet = 1.0 if isinstance(reading, str) and reading.endswith("printing") else 2.0
    reading = True if reading == "read, printing" else reading
    facts = ScreenFacts(rows, cursor=(1, len(line), True), now=NOW, last_output_at=NOW - quiet, started_at=NOW - 60,
                        command=["bash"] if in_front is not False else ["python3", "tool.py"],
                        leader_in_front=in_front, reading=False if listening else reading, listening=listening)
    assert AgentStateDetector(load_rulebook(user=Path("/nonexistent"))).evaluate(facts)[:2] == expected
