"""Agent states in a real host (issue 12, part 2), through the `tiki` binary: the stand-ins of
Claude Code and Codex in real tabs, `terminal-list --json`, `tiki explain`, `terminal-wait
--until`, and sends that reach an agent at the right moment (queued while it works, refused
while it asks its user, Enter verified)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from conftest import BASH_TAB, TIKI, wait_until
from ipc_helpers import request

from tikitaka.actors.tabs import keyboard

STANDINS = Path(__file__).parent / "standins"


def tab(name: str, script: str, *args: str, role: str = "peer") -> str:
    command = json.dumps([sys.executable, str(STANDINS / script), *args])
    return f'[[tab]]\nname = "{name}"\ncommand = {command}\nrole = "{role}"\n'


def agent_of(host, name: str) -> dict:
    return next(t for t in host.json("terminal-list")["terminals"] if t["name"] == name)["agent"]


def screen(host, name: str, lines: int = 40) -> str:
    """The tab's last lines, over the socket (a few ms, where the CLI costs a process start)."""
    return request(host.env, "terminal.read", name=name, lines=lines)["result"]["text"]


def state_of(host, name: str) -> str:
    reply = request(host.env, "terminal.explain", name=name)
    return reply["result"]["state"]


def test_claude_through_a_turn_states_explain_and_the_tab_list(serve):
    host = serve(tab("Claude", "claude_standin.py", "--speed", "0.5") + BASH_TAB)
    assert host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    row = agent_of(host, "Claude")
    assert row["kind"] == "claude" and row["state"] == "idle" and row["reason"].startswith("input-box: ")
    assert abs(row["since"] - time.time()) < 30
    assert agent_of(host, "sh")["kind"] == "shell"

    assert host.run("terminal-send", "Claude", "make a demo dir").returncode == 0
    # working within 1 s of the spinner showing; then the permission prompt
    shown = wait_until(lambda: "esc to interrupt" in screen(host, "Claude", 10) and time.monotonic(), 10,
                       0.01, what="the spinner")
    wait_until(lambda: state_of(host, "Claude") == "working", 5, 0.05, what="working")
    assert time.monotonic() - shown < 1.0
    shown = wait_until(lambda: "Do you want to proceed?" in screen(host, "Claude", 24) and time.monotonic(), 10,
                       0.01, what="the permission prompt")
    wait_until(lambda: state_of(host, "Claude") == "waiting", 5, 0.05, what="waiting")
    assert time.monotonic() - shown < 1.0

    explained = host.run("explain", "Claude")
    assert explained.returncode == 0, explained.stderr
    out = explained.stdout
    assert out.startswith("Claude: waiting for ") and "rule:     choice-menu" in out
    assert "Claude Code (claude)" in out and "claude.toml" in out
    assert "matched:  bottom:24 shows 'Esc to cancel · Tab to amend" in out and "❯ 1. Yes" in out
    assert "Do you want to proceed?" in out  # the screen that shows what it asks
    listed = host.run("terminal-list")
    assert "claude:waiting" in listed.stdout and "shell:idle" in listed.stdout

    # answered: working again, then idle; no waiting is left behind
    assert host.run("terminal-send", "Claude", "1", "--now", "--no-enter").returncode == 0
    done = host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "15000")
    assert done.returncode == 0 and "Claude idle after" in done.stdout and "input-box" in done.stdout
    assert "Worked for" in host.read("Claude", 20)
    timeout = host.run("terminal-wait", "Claude", "--until", "waiting", "--timeout-ms", "300")
    assert timeout.returncode == 4 and "was not waiting within 300 ms; it is idle (input-box" in timeout.stderr


def test_a_send_to_a_working_agent_is_typed_only_once_it_is_idle(serve, tmp_path):
    log = tmp_path / "codex-input.jsonl"
    # --speed 3: the first task works 7.5 s, long enough on a loaded machine for the second
    # `tiki terminal-send` (three CLI starts later) to find it still working
    host = serve(tab("Codex", "codex_standin.py", "--log", str(log), "--speed", "3"))
    assert host.run("terminal-wait", "Codex", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    first = host.run("terminal-send", "Codex", "first task")
    assert first.returncode == 0 and "queued" not in first.stderr + first.stdout
    assert host.run("terminal-wait", "Codex", "--until", "working", "--timeout-ms", "5000").returncode == 0

    sender = subprocess.Popen([TIKI, "terminal-send", "Codex", "second task"], env=host.env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = sender.communicate(timeout=30)
    assert sender.returncode == 0, err
    assert "Codex is working (" in err and "queued (#1), typed when it is idle" in err
    assert out.startswith("delivered to Codex after ")

    arrivals = [json.loads(line) for line in log.read_text().splitlines()]
    second = [a for a in arrivals if "second" in a["text"]]
    assert second and all(a["state"] == "idle" for a in second), arrivals  # never while it worked
    enters = [i for i, a in enumerate(arrivals) if a["text"] == "\r"]
    assert len(enters) == 2 and all(arrivals[i]["state"] == "idle" for i in enters)  # one Enter each, taken
    # Enter comes as its own write, at least 150 ms after the text (Codex takes a fast burst + Enter as a
    # newline); stamped as it arrives, by a reader that may wake a scheduler's slice late for the text
    assert all(arrivals[i]["at"] - arrivals[i - 1]["at"] >= keyboard.ENTER_GAP - 0.03 for i in enters), arrivals
    wait_until(lambda: "› second task" in host.read("Codex", 40), 10, what="the second task in the transcript")
    screen = host.read("Codex", 40)
    assert screen.index("Worked for") < screen.index("› second task")


def test_a_send_from_inside_a_tab_or_with_no_wait_returns_once_queued(serve, tmp_path):
    """A peer blocked in its own send stays `working`: two peers sending to each other would wait
    on each other forever. So inside a tab a send returns once queued; the host types it later."""
    log = tmp_path / "codex-input.jsonl"
    host = serve(tab("Codex", "codex_standin.py", "--speed", "0.8", "--log", str(log)) + BASH_TAB)
    assert host.run("terminal-wait", "Codex", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    assert host.run("terminal-send", "Codex", "first task").returncode == 0
    assert host.run("terminal-wait", "Codex", "--until", "working", "--timeout-ms", "5000").returncode == 0
    queued = host.run("terminal-send", "Codex", "later task", "--no-wait")
    assert queued.returncode == 0 and queued.stdout.startswith("queued for Codex")
    assert host.run("terminal-send", "sh", "tiki terminal-send Codex from the shell tab; echo rc=$((100+$?))"
                    ).returncode == 0
    text = host.wait_text("sh", "rc=10", timeout=10)
    assert "queued for Codex" in text and "rc=100" in text
    assert state_of(host, "Codex") == "working"  # it returned while Codex still worked
    wait_until(lambda: log.exists() and "from the shell tab" in log.read_text(), 20, what="both queued texts typed")
    typed = [json.loads(line) for line in log.read_text().splitlines() if "task" in line or "shell" in line]
    pasted = [t["text"].replace("\x1b[200~", "").replace("\x1b[201~", "") for t in typed]
    assert pasted[1:] == ["later task", "from the shell tab"]
    assert all(t["state"] == "idle" for t in typed)  # each typed into an idle Codex, in order


def test_a_swallowed_enter_is_sent_once_more_and_the_text_never_twice(serve):
    host = serve(tab("Claude", "claude_standin.py", "--speed", "0.3", "--drop-enters", "1"))
    assert host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    reply = request(host.env, "terminal.send", name="Claude", text="count the files")
    assert reply["ok"] is True, reply
    result = reply["result"]
    assert result["submitted"] is True and result["enter_retries"] == 1 and result["delivery"] == "delivered"
    wait_until(lambda: "Do you want to proceed?" in host.read("Claude", 24), 10, what="the turn to run")
    screen = host.read("Claude", 40)
    assert screen.count("count the files") == 1  # in the transcript, once; the input box is empty


def test_a_send_to_an_agent_waiting_for_its_user_returns_what_it_asks(serve):
    host = serve(tab("Claude", "claude_standin.py", "--speed", "0.3"))
    assert host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    assert host.run("terminal-send", "Claude", "make a demo dir").returncode == 0
    assert host.run("terminal-wait", "Claude", "--until", "waiting", "--timeout-ms", "10000").returncode == 0
    before = host.read("Claude", 40)
    started = time.monotonic()
    refused = host.run("terminal-send", "Claude", "hello there")
    assert refused.returncode == 1 and time.monotonic() - started < 3
    assert "is waiting for its user (choice-menu)" in refused.stderr
    assert "Do you want to proceed?" in refused.stderr and "--now" in refused.stderr
    reply = request(host.env, "terminal.send", name="Claude", text="hello there")
    assert reply["ok"] is False and "Do you want to proceed?" in reply["error"]["message"]
    time.sleep(0.5)  # nothing was typed: the prompt still waits, the screen is as it was
    assert host.read("Claude", 40) == before and state_of(host, "Claude") == "waiting"


def test_terminal_wait_until_exited_and_a_tab_that_exits_first(serve):
    host = serve(tab("Claude", "claude_standin.py", "--speed", "0.3"))
    assert host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    waiter = subprocess.Popen([TIKI, "terminal-wait", "Claude", "--until", "waiting", "--timeout-ms", "20000"],
                              env=host.env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)
    assert host.run("terminal-key", "Claude", "ctrl+d").returncode == 0  # Claude quits at an empty prompt
    _, err = waiter.communicate(timeout=15)
    assert waiter.returncode == 1 and "exited before it was waiting" in err
    done = host.run("terminal-wait", "Claude", "--until", "exited", "--timeout-ms", "5000")
    assert done.returncode == 0 and "Claude exited after" in done.stdout
    assert agent_of(host, "Claude")["state"] == "exited"
    assert host.run("terminal-restart", "Claude").returncode == 0  # a new detector for the new program
    # never the old program's "exited"; while the banner prints, before the prompt, the
    # quiet-period fallback may already call it working (CI saw that once)
    assert agent_of(host, "Claude")["state"] in ("starting", "working", "idle")
    assert host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "10000").returncode == 0


def test_an_agent_started_in_a_shell_tab_is_known_by_its_foreground_command(serve, tmp_path):
    launcher = tmp_path / "claude"  # a program named claude, run from the shell's prompt
    launcher.write_text(f"#!{sys.executable}\n" + (STANDINS / "claude_standin.py").read_text())
    launcher.chmod(0o755)
    host = serve(BASH_TAB)
    assert host.run("terminal-wait", "sh", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    assert host.run("terminal-send", "sh", f"{launcher} --speed 0.3").returncode == 0
    wait_until(lambda: (r := request(host.env, "terminal.explain", name="sh")["result"])["kind"] == "claude"
               and r["identified_by"] == "command", 10, 0.1, what="the claude kind from the foreground command")
    assert host.run("terminal-key", "sh", "ctrl+d").returncode == 0  # Claude exits; its last frame stays
    wait_until(lambda: "Resume this session" in host.read("sh", 20), 10, what="Claude's exit")
    seen = []

    def shell_again():
        seen.append(request(host.env, "terminal.explain", name="sh")["result"])
        return seen[-1]["kind"] == "shell" and seen[-1]["state"] == "idle"

    deadline = time.monotonic() + 10
    while not shell_again() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert seen[-1]["kind"] == "shell" and seen[-1]["state"] == "idle", seen[-1]
    assert seen[-1]["identified_by"] == "command" and "bash" in " ".join(seen[-1]["command"])


def test_a_silent_command_at_a_shell_prompt_is_working_until_the_prompt_returns(serve):
    """`sleep`, a build between two messages, a download: while a command typed at the prompt
    holds the terminal the shell tab is working, printing or not (it read idle 1.5 s after the
    command line's echo, and `terminal-wait --until idle` -- the coordinator's wait -- went on
    with the command still running)."""
    host = serve(BASH_TAB)
    assert host.run("terminal-wait", "sh", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    assert host.run("terminal-send", "sh", "sleep 5; echo slept-$((2+2))").returncode == 0
    sent = time.monotonic()
    seen = []
    while time.monotonic() - sent < 2.8:  # past the quiet period (1.5 s), before the end
        reply = request(host.env, "terminal.explain", name="sh")["result"]
        if time.monotonic() - sent > 0.5:
            seen.append((reply["state"], reply["rule"]))
        time.sleep(0.1)
    explained = host.run("explain", "sh").stdout
    assert "slept-4" not in host.read("sh", 5)
    assert seen[-1] == ("working", "job") and {state for state, _ in seen} == {"working"}, seen
    assert "rule:     job" in explained and "'sleep 5' runs in front" in explained, explained
    # a rule's description written over several lines of its file is one line here
    assert "a download): working until the shell is in front again" in explained, explained
    done = host.run("terminal-wait", "sh", "--until", "idle", "--timeout-ms", "10000")
    assert done.returncode == 0 and "slept-4" in host.read("sh", 5), done.stdout
    # A program in front at its own prompt waits for its user as a shell does: a debugger's
    # `(Pdb) ` is idle, not a job at work.
    assert host.run("terminal-send", "sh", "python3 -c 'import pdb; pdb.set_trace()'").returncode == 0
    wait_until(lambda: "(Pdb)" in host.read("sh", 3), 10, 0.1, what="the debugger's prompt")
    time.sleep(1.8)  # past the quiet period: the job rule would say working from here on
    reply = request(host.env, "terminal.explain", name="sh")["result"]
    assert (reply["state"], reply["rule"]) == ("idle", "prompt"), reply
    # and so is a script's own question to its user (`read -p`), which a coordinator answers
    assert host.run("terminal-send", "sh", "c").returncode == 0
    assert host.run("terminal-wait", "sh", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    assert host.run("terminal-send", "sh", "bash -c 'read -p \"Branch to merge: \" b; echo merging-$b'").returncode == 0
    wait_until(lambda: "Branch to merge:" in host.read("sh", 3), 10, 0.1, what="the script's question")
    time.sleep(1.8)
    reply = request(host.env, "terminal.explain", name="sh")["result"]
    assert (reply["state"], reply["rule"]) == ("idle", "prompt"), reply
    # and a program that reads what is typed with no prompt at all (Linux: it waits in a read
    # of its terminal): `cat`, taking lines, is idle between them
    assert host.run("terminal-send", "sh", "main").returncode == 0
    assert host.run("terminal-wait", "sh", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    assert host.run("terminal-send", "sh", "cat").returncode == 0
    assert host.run("terminal-send", "sh", "line-one").returncode == 0
    wait_until(lambda: host.read("sh", 3).count("line-one") == 2, 10, 0.1, what="cat's echo of a line")
    wait_until(lambda: request(host.env, "terminal.explain", name="sh")["result"]["rule"] == "reads-terminal", 5,
               0.1, what="cat waiting for the next line")
    assert request(host.env, "terminal.explain", name="sh")["result"]["state"] == "idle"


def test_a_broken_user_rules_file_is_left_out_and_reported(serve, tiki_env):
    agents = Path(tiki_env["TIKI_CONFIG_DIR"]) / "agents"
    agents.mkdir(parents=True)
    (agents / "claude.toml").write_text('[[rule]]\nname = "mine"\nstate = "busy"\n')
    host = serve(tab("Claude", "claude_standin.py", "--speed", "0.3"))
    assert host.run("terminal-wait", "Claude", "--until", "idle", "--timeout-ms", "10000").returncode == 0
    explained = host.run("explain", "Claude")
    assert "left out: " in explained.stdout and "state = 'busy' is not a state" in explained.stdout
    assert "rule:     input-box" in explained.stdout  # the bundled rules still decide
    status = host.run("status")
    assert "agent_rules" in status.stdout and "is not a state" in status.stdout


def test_a_peer_tab_whose_program_is_not_recognised_gets_enter_150_ms_after_the_paste(serve, tmp_path):
    """A peer whose AI CLI has no rules yet (kind `shell`) still gets the agent's typing: the text
    as a bracketed paste when it asked for one, Enter as its own write at least 150 ms later."""
    log = tmp_path / "reads.jsonl"
    logger = json.dumps([sys.executable, str(Path(__file__).parent / "key_logger.py"), str(log), "--bracketed"])
    host = serve(f'[[tab]]\nname = "ai"\ncommand = {logger}\nrole = "peer"\n')
    host.wait_text("ai", "bracketed ready", timeout=10)
    assert host.run("terminal-send", "ai", "hello peer").returncode == 0
    reads = [json.loads(line) for line in log.read_text().splitlines()]
    assert "".join(r["data"] for r in reads[:-1]) == "\x1b[200~hello peer\x1b[201~" and reads[-1]["data"] == "\r"
    # The host waits 150 ms after its write of the text; the logger's read of that text may come
    # a little late on a loaded machine (seen: 148 ms between the reads, two suites at once), so
    # the reads are allowed 20 ms of that -- still far from the text and Enter in one read.
    assert reads[-1]["t"] - reads[-2]["t"] >= 0.13


def test_typing_at_a_shell_prompt_is_not_work(serve):
    """A person (or a second UI, or a peer) typing a command line at the prompt: each key's
    echo was output, the cursor's line no longer ended like a prompt, and the tab read
    `working` until 1.5 s after the last key -- the tab bar flipped as you typed, and a UI
    elsewhere could be told the tab was done. What a program prints within moments of a key
    is its echo, not work; the command the line starts still is."""
    host = serve(BASH_TAB)
    # (at the prompt a while, as when a person starts typing: what bash printed last is its
    # prompt, and output in the last 1.5 s reads as work)
    assert host.run("terminal-wait", "sh", "--idle-ms", "1600", "--timeout-ms", "10000").returncode == 0
    seen = set()
    for key in "echo typed-$((6*7))":  # a key every 0.15 s for ~3 s
        request(host.env, "terminal.key", name="sh", keys=["space" if key == " " else key])
        time.sleep(0.15)
        reply = request(host.env, "terminal.explain", name="sh")["result"]
        seen.add((reply["state"], reply["rule"]))
    assert "echo typed-$((6*7))" in host.read("sh", 2)
    assert {state for state, _ in seen} == {"idle"}, seen
    request(host.env, "terminal.key", name="sh", keys=["enter"])
    wait_until(lambda: "typed-42" in host.read("sh", 3).replace("$((6*7))", ""), 10, 0.05, what="the command's output")
    # and a command the line starts is work from its first output on, as before
    assert host.run("terminal-send", "sh", "for i in 1 2 3 4 5 6; do echo step-$i; sleep 0.4; done").returncode == 0
    wait_until(lambda: "step-3" in host.read("sh", 5), 10, 0.05, what="the loop's third step")
    assert state_of(host, "sh") == "working"
