"""Agent states of real processes in real PTYs: the stand-ins replaying Claude Code, Codex and
aider, a real bash, top and less, each read through the real emulator and the bundled rules.

A `Tab` here is what the terminal actor will do in part 2: read the PTY, feed the screen and
the notification scanner, evaluate after each read and again at `recheck_at`.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from tikitaka.terminals.agent_state import AgentStateDetector, screen_facts
from tikitaka.terminals.agent_state_rules import load_rulebook
from tikitaka.terminals.agent_state_signals import NotificationScanner
from tikitaka.terminals.screen import Screen

STANDINS = Path(__file__).parent / "standins"
RULES = load_rulebook(user=Path("/nonexistent"))
SPEED = "0.5"


class Child:
    """A program on a PTY of `cols` x `rows` (the standard library's pty, nothing of ours)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, cols: int, rows: int) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: exec or die, never return into pytest
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.exitstatus: int | None = None

    def wait(self) -> int:
        if self.exitstatus is None:
            status = os.waitpid(self.pid, 0)[1]
            self.exitstatus = os.waitstatus_to_exitcode(status)
        return self.exitstatus

    def isalive(self) -> bool:
        return self.exitstatus is None and os.waitpid(self.pid, os.WNOHANG)[0] == 0

    def terminate(self, force: bool = True) -> None:
        os.kill(self.pid, signal.SIGKILL)
        self.wait()
        os.close(self.fd)


class Tab:
    def __init__(self, argv: list[str], tmp_path: Path, cols: int = 80, rows: int = 24) -> None:
        env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "TERM": "xterm-256color", "LANG": "C.UTF-8",
               "PS1": "tiki$ ", "PYTHONUNBUFFERED": "1"}
        self.proc = Child(argv, env, str(tmp_path), cols, rows)
        self.command = argv
        self.screen, self.scanner = Screen(cols, rows), NotificationScanner()
        self.detector = AgentStateDetector(RULES)
        self.started = time.monotonic()
        self.last_output: float | None = None
        self.exited, self.exit_code = False, None
        self.history: list[tuple[float, str, str]] = []  # (when, state, rule) at each change
        self.seen: dict[str, float] = {}  # text -> when the screen first showed it (see watch)

    def evaluate(self, now: float, notes=()) -> None:
        verdict = self.detector.evaluate(screen_facts(
            self.screen, now=now, last_output_at=self.last_output, started_at=self.started, notifications=notes,
            exited=self.exited, exit_code=self.exit_code, command=self.command))
        if not self.history or self.history[-1][1] != verdict.state:
            self.history.append((now, verdict.state, verdict.rule))

    def pump(self, seconds: float, until=None) -> bool:
        """Read and evaluate for up to `seconds`; stop early when `until()` holds."""
        end = time.monotonic() + seconds
        while True:
            now = time.monotonic()
            if until is not None and until():
                return True
            if now >= end or self.exited and self.detector.recheck_at is None:
                return until is None
            deadline = min(end, self.detector.recheck_at or end)
            if self.exited or not select.select([self.proc.fd], [], [], max(0.0, deadline - now))[0]:
                if self.exited:
                    time.sleep(max(0.0, deadline - now))
                self.evaluate(time.monotonic())  # a quiet-period rule may have come due
                continue
            try:
                data = os.read(self.proc.fd, 65536)
            except OSError:
                data = b""
            now = time.monotonic()
            if not data:
                self.proc.wait()
                self.exited, self.exit_code = True, self.proc.exitstatus
                self.evaluate(now)
                continue
            self.last_output = now
            replies = self.screen.feed(data)
            if replies:
                os.write(self.proc.fd, replies)
            text = self.screen.text(self.screen.rows)
            for marker in self.seen_wanted:
                if marker not in self.seen and marker in text:
                    self.seen[marker] = now
            self.evaluate(now, self.scanner.scan(data.decode("utf-8", "replace"), now))

    seen_wanted: tuple[str, ...] = ()

    def wait_for(self, state: str, timeout: float = 10.0) -> float:
        if not self.pump(timeout, lambda: self.detector.verdict.state == state):
            raise AssertionError(f"no {state!r} within {timeout} s: {self.states()} screen:\n{self.screen.text(24)}")
        return self.history[-1][0]

    def send(self, data: bytes) -> float:
        os.write(self.proc.fd, data)
        return time.monotonic()

    def states(self, since: float = 0.0) -> list[str]:
        return [state for when, state, _ in self.history if when >= since]

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)
        else:
            os.close(self.proc.fd)


@pytest.fixture
def tabs(tmp_path: Path):
    opened: list[Tab] = []

    def open_tab(argv: list[str], **kw) -> Tab:
        tab = Tab(argv, tmp_path, **kw)
        opened.append(tab)
        return tab

    yield open_tab
    for tab in opened:
        tab.close()


def standin(name: str, *args: str) -> list[str]:
    return [sys.executable, str(STANDINS / f"{name}_standin.py"), "--speed", SPEED, *args]


def test_claude_working_permission_answered_working_idle(tabs):
    tab = tabs(standin("claude") + ["--notify"])
    tab.command = ["claude"]  # what the tab's command says in a workspace
    tab.seen_wanted = ("Do you want to proceed?", "Worked for")
    tab.wait_for("idle", 10)
    tab.send(b"make demo-dir please")
    tab.pump(0.3)
    assert tab.detector.verdict.state == "idle"  # typing into the input box is not work
    submitted = tab.send(b"\r")
    assert tab.wait_for("working") - submitted < 1.0
    waiting = tab.wait_for("waiting")
    assert waiting - tab.seen["Do you want to proceed?"] < 1.0
    assert tab.detector.verdict.rule == "choice-menu"
    tab.pump(1.0)
    assert tab.detector.verdict.state == "waiting"  # it waits as long as the prompt is up
    answered = tab.send(b"1")
    assert tab.wait_for("working") - answered < 1.0
    idle = tab.wait_for("idle")
    assert idle - tab.seen["Worked for"] < 1.0
    tab.pump(2.5)  # past every quiet-period threshold
    assert "waiting" not in tab.states(since=answered) and tab.detector.verdict.state == "idle"
    tab.send(b"\x03\x03")
    tab.wait_for("exited")


def test_codex_working_approval_working_idle_on_the_alternate_screen(tabs):
    tab = tabs(standin("codex", "--approve"))
    tab.command = ["npx", "@openai/codex"]
    tab.wait_for("idle", 10)
    assert tab.screen.alt_screen and tab.detector.verdict.kind == "codex"
    submitted = tab.send(b"create demo-dir\r")
    assert tab.wait_for("working") - submitted < 1.0
    tab.wait_for("waiting")
    # The overlay and its title are two writes: a look between them sees the overlay alone
    # (approval-dialog), a later one both. Either way the approval is what makes it `waiting`.
    assert tab.detector.verdict.rule in ("approval-title", "approval-dialog")
    assert "Would you like to run" in tab.screen.text(24) or "Action Required" in tab.screen.title
    # once both show, the rule order decides, not timing: the title is the first rule
    assert tab.pump(3, lambda: "Action Required" in tab.screen.title)
    tab.evaluate(time.monotonic())
    assert (tab.detector.verdict.state, tab.detector.verdict.rule) == ("waiting", "approval-title")
    answered = tab.send(b"y")
    assert tab.wait_for("working") - answered < 1.0
    tab.wait_for("idle")
    tab.pump(2.5)
    assert "waiting" not in tab.states(since=answered) and tab.detector.verdict.state == "idle"


def test_codex_working_then_idle(tabs):
    tab = tabs(standin("codex"))
    tab.command = ["codex"]
    tab.wait_for("idle", 10)
    tab.send(b"explain this repo\r")
    tab.wait_for("working")
    tab.wait_for("idle")
    assert tab.states()[-3:] == ["idle", "working", "idle"], tab.history


def test_aider_prompt_spinner_question_answered_prompt(tabs):
    tab = tabs(standin("aider"))
    tab.command = ["aider"]
    assert tab.wait_for("idle", 10) and tab.detector.verdict.rule == "prompt"
    tab.send(b"create demo-dir\r")
    tab.wait_for("working")
    tab.wait_for("waiting")
    assert tab.detector.verdict.rule == "question"
    answered = tab.send(b"y\r")
    tab.wait_for("idle")
    tab.pump(2.5)
    assert "waiting" not in tab.states(since=answered) and tab.detector.verdict.state == "idle"


def test_an_agent_started_in_a_shell_tab_is_recognised_by_its_screen(tabs):
    tab = tabs(["bash", "--norc", "--noprofile", "-i"])
    tab.wait_for("idle", 10)
    tab.send(" ".join(standin("claude")).encode() + b"\r")
    tab.pump(10, lambda: tab.detector.verdict.kind == "claude")
    assert tab.detector.verdict.kind == "claude"
    tab.send(b"hello")
    tab.send(b"\r")
    tab.wait_for("waiting")
    tab.send(b"3")  # "No": Claude asks what to do instead, at its input box
    tab.wait_for("idle")
    tab.send(b"\x03\x03")
    tab.pump(10, lambda: tab.screen.cursor[2] and tab.screen.text(3).rstrip().endswith("tiki$"))
    tab.pump(2.5)  # past the quiet-period thresholds: back at the shell's prompt
    assert tab.detector.verdict.state == "idle", tab.history


def test_bash_is_idle_at_its_prompt_working_while_a_command_prints_and_never_waiting(tabs):
    tab = tabs(["bash", "--norc", "--noprofile", "-i"])
    started = tab.wait_for("idle", 10)
    assert started - tab.started < 2.0 and tab.detector.verdict.rule == "prompt"
    tab.send(b"for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.2; done\r")
    tab.wait_for("working")
    tab.wait_for("idle")
    tab.pump(2.0)
    assert "waiting" not in tab.states() and tab.detector.verdict.state == "idle"
    # a real question on the cursor's line is waiting, and answering it ends that
    tab.send(b"read -p 'Overwrite notes.txt? [y/N] ' answer\r")
    tab.wait_for("waiting")
    answered = tab.send(b"n\r")
    assert tab.wait_for("idle") - answered < 1.0
    tab.pump(2.0)
    assert "waiting" not in tab.states(since=answered)


@pytest.mark.parametrize("program, rule", [("top -d 0.5", "hidden-cursor"), ("less /etc/services", "full-screen")])
def test_a_full_screen_program_is_unknown_not_working_forever(tabs, program: str, rule: str):
    if not shutil.which(program.split()[0]):
        pytest.fail(f"{program.split()[0]} is not installed; the test needs the real program")
    tab = tabs(["bash", "--norc", "--noprofile", "-i"])
    tab.wait_for("idle", 10)
    started = tab.send(program.encode() + b"\r")
    unknown = tab.wait_for("unknown")  # after the shell's echo of the command line
    assert unknown - started < 1.0 and tab.detector.verdict.rule == rule
    tab.pump(3.0)  # top repaints twice a second all along
    assert tab.states(since=unknown) == ["unknown"], tab.history
    tab.send(b"q")
    tab.wait_for("idle")
