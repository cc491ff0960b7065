"""Agent states against the real Claude Code's screens (field test): its /login dialog, its
trust prompt, its exit.

Offline and signed out, Claude Code (with onboarding marked done in a private HOME) shows its
folder-trust prompt, then its input box; `/login` and Enter open a dialog that first shows
"Login … Esc to cancel" while it prepares, then asks for the code the browser shows. The prompt
"❯ /login" the user sent stays in view above the dialog: it is not the input box.

Claude 2.1.332 numbers no items in its trust prompt ("❯ No, exit" first). And a Claude started
by `sh -c 'exec claude'` that exits is still the tab's agent, though only the shell is left.

The real CLI runs where it is installed (skipped otherwise); the stand-in tests print the exact
text of a captured frame (claude 2.1.197, 120 columns) with agent_field_screen.py.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import wait_until
from ipc_helpers import request

CLAUDE = shutil.which("claude")
SCREEN = Path(__file__).parent / "agent_field_screen.py"
RULE = "─" * 120

# The /login dialog's first frame, as claude 2.1.197 drew it (the banner above left out).
LOGIN_PREPARING = ["", "", "❯ /login", "  ⎿  Login interrupted", "", "❯ /login", "", RULE, "  Login",
                   "", "", "  Esc to cancel", ""]


def explain(host, name: str) -> dict:
    return request(host.env, "terminal.explain", name=name)["result"]


def claude_env(tiki_env: dict[str, str], home: Path) -> dict[str, str]:
    home.mkdir()
    # Onboarding done: Claude goes straight to the folder-trust prompt, then its input box,
    # rather than to its start screen (which, offline, exits).
    (home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True, "theme": "dark"}))
    env = {k: v for k, v in tiki_env.items() if not k.startswith(("TMUX", "CLAUDE", "ANTHROPIC"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), LANG="C.UTF-8", TERM="xterm-256color")
    return env


def trust_the_folder(host) -> None:
    """Answer Claude's folder-trust prompt with yes. 2.1.197 selects "❯ 1. Yes, I trust this
    folder"; 2.1.332 selects "❯ No, exit", its items unnumbered."""
    if "❯ No, exit" in host.read("Claude", 40):
        assert host.run("terminal-key", "Claude", "down").returncode == 0
        host.wait_text("Claude", "❯ Yes, I trust this folder", 10)
    assert host.run("terminal-key", "Claude", "enter").returncode == 0


@pytest.mark.skipif(CLAUDE is None, reason="needs claude (npm @anthropic-ai/claude-code)")
def test_real_claude_login_dialog_asks_the_user(serve, tiki_env, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    tab = f'[[tab]]\nname = "Claude"\ncommand = ["claude"]\ncwd = "{project}"\nrole = "peer"\n'
    host = serve(tab, env=claude_env(tiki_env, tmp_path / "home"))
    host.wait_text("Claude", "Yes, I trust this folder", 30)
    wait_until(lambda: explain(host, "Claude")["state"] == "waiting", 10, 0.05, what="trust prompt: waiting")
    trust_the_folder(host)
    wait_until(lambda: explain(host, "Claude")["rule"] == "input-box", 20, 0.05, what="the input box: idle")

    assert host.run("terminal-send", "Claude", "/login").returncode == 0
    host.wait_text("Claude", "Select login method", 15)
    wait_until(lambda: explain(host, "Claude")["state"] == "waiting", 5, 0.05, what="login menu: waiting")
    assert host.run("terminal-key", "Claude", "enter").returncode == 0
    # Every evaluation of a screen with the dialog open must not read the sent "❯ /login" as
    # the input box, from the first frame to the code prompt.
    seen: list[tuple[str, str]] = []

    def code_prompt_waiting() -> bool:
        view = explain(host, "Claude")
        screen = view["screen"] if isinstance(view["screen"], str) else "\n".join(view["screen"] or ())
        if "Login" in screen and "Select login method" not in screen:
            seen.append((view["state"], view["rule"]))
        return "Paste code here if prompted" in screen and view["state"] == "waiting"

    wait_until(code_prompt_waiting, 20, 0.05, what="the code prompt: waiting")
    assert ("idle", "input-box") not in seen, seen
    assert explain(host, "Claude")["rule"] == "sign-in-code"

    assert host.run("terminal-key", "Claude", "esc").returncode == 0
    wait_until(lambda: explain(host, "Claude")["rule"] == "input-box", 10, 0.05, what="back at the input box")


def test_sent_prompt_above_a_dialog_is_not_the_input_box(serve, tmp_path):
    screen = tmp_path / "login.txt"
    screen.write_text("\n".join(LOGIN_PREPARING))
    command = json.dumps([sys.executable, str(SCREEN), str(screen), "--title", "✳ Claude Code"])
    host = serve(f'[[tab]]\nname = "Claude"\ncommand = {command}\nrole = "peer"\n')
    host.wait_text("Claude", "Esc to cancel")
    # The state the detector gave once it had evaluated the dialog's frame (explain's screen
    # is the one the verdict was made on).
    view = wait_until(lambda: (v := explain(host, "Claude")) and "Esc to cancel" in str(v["screen"]) and v,
                      10, 0.05, what="the dialog evaluated")
    assert view["kind"] == "claude", view
    assert view["state"] != "idle" and view["rule"] != "input-box", view


@pytest.mark.skipif(CLAUDE is None, reason="needs claude (npm @anthropic-ai/claude-code)")
def test_real_claude_started_by_a_shell_exits_as_claude(serve, tiki_env, tmp_path):
    # `sh -c '... exec claude'` (how CI and many users wrap it): once Claude ends, only the
    # tab's command is left to name the agent, and it names a shell; the tab ran Claude.
    project = tmp_path / "proj"
    project.mkdir()
    command = json.dumps(["sh", "-c", "cd \"$1\" && exec claude", "sh", str(project)])
    host = serve(f'[[tab]]\nname = "Claude"\ncommand = {command}\nrole = "peer"\n',
                 env=claude_env(tiki_env, tmp_path / "home"))
    host.wait_text("Claude", "Yes, I trust this folder", 30)
    wait_until(lambda: explain(host, "Claude")["kind"] == "claude", 10, 0.05, what="known as Claude")
    trust_the_folder(host)
    wait_until(lambda: explain(host, "Claude")["rule"] == "input-box", 20, 0.05, what="the input box")
    # Ctrl+C twice quits; its last frame shows no input box, no dialog: nothing of Claude's
    assert host.run("terminal-key", "Claude", "ctrl+c").returncode == 0
    host.wait_text("Claude", "Press Ctrl-C again to exit", 10)
    assert host.run("terminal-key", "Claude", "ctrl+c").returncode == 0
    view = wait_until(lambda: (v := explain(host, "Claude"))["state"] == "exited" and v, 15, 0.05,
                      what="exited")
    assert view["kind"] == "claude" and view["rule"] == "exited", view
    row = next(t for t in host.json("terminal-list")["terminals"] if t["name"] == "Claude")
    assert row["agent"]["kind"] == "claude", row


def test_agent_known_by_its_process_stays_known_once_it_exits(serve, tmp_path):
    # The stand-in runs as `claude` (a link of that name), started by `sh -c exec`: known by
    # the terminal's foreground command while it runs; its last frame is blank.
    screen = tmp_path / "input.txt"
    screen.write_text("\n".join([RULE, "❯ ", RULE, "  ? for shortcuts"]))
    link = tmp_path / "claude"
    link.write_text(f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {str(SCREEN)!r}\n"
                    f"runpy.run_path({str(SCREEN)!r}, run_name='__main__')\n")
    link.chmod(0o755)
    command = json.dumps(["sh", "-c", f"exec {link} {screen} --exit-on-key"])
    host = serve(f'[[tab]]\nname = "Claude"\ncommand = {command}\nrole = "peer"\n')
    wait_until(lambda: (v := explain(host, "Claude"))["kind"] == "claude" and v["identified_by"] == "command",
               10, 0.05, what="known as Claude by its process")
    assert host.run("terminal-key", "Claude", "enter").returncode == 0
    # (exited as soon as the program has ended; its code once the host has reaped it)
    view = wait_until(lambda: (v := explain(host, "Claude"))["evidence"] == "exited with code 0" and v, 10, 0.05,
                      what="exited with its code")
    assert view["kind"] == "claude" and view["state"] == "exited", view
