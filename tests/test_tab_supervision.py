"""A tab's reader, writer and notifier run under the supervisor (issue 8, supervision): a reader
that raises is restarted on the same PTY and the tab keeps working; one that keeps failing
marks the tab failed, requests say so, and `terminal-restart` makes it healthy again."""

from __future__ import annotations

import subprocess

from conftest import TIKI, wait_until

from tikitaka.terminals.screen import Screen


def tiki(env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, *args], env=env, capture_output=True, text=True, timeout=60)


def screen_text(env) -> str:
    result = tiki(env, "terminal-read", "sh", "--lines", "100")
    return result.stdout if result.returncode == 0 else ""


def test_a_reader_that_raises_once_is_restarted_and_the_tab_keeps_working(bash_host, in_tiki_env, monkeypatch):
    feed = Screen.feed
    failures = []

    def choke_once(self, data):
        if b"CHOKE" in data and not failures:
            failures.append(data)
            raise ValueError("the emulator choked")
        return feed(self, data)

    monkeypatch.setattr(Screen, "feed", choke_once)
    assert tiki(in_tiki_env, "terminal-send", "sh", "echo CHOKE").returncode == 0
    wait_until(lambda: failures, what="the injected failure")
    assert tiki(in_tiki_env, "terminal-send", "sh", "echo after-$((40+2))").returncode == 0
    wait_until(lambda: "after-42" in screen_text(in_tiki_env), what="output after the restart")
    terminal = bash_host.workspace.get("sh").get(timeout=5).terminal
    assert terminal.status().get(timeout=5)["failed"] is None


def test_a_reader_that_keeps_failing_marks_the_tab_failed_until_restart(bash_host, in_tiki_env, monkeypatch):
    # A child that prints all the time, so a reader that raises on every chunk fails again
    # at once after each restart until the supervisor gives up (5 restarts in 60 s).
    assert tiki(in_tiki_env, "terminal-send", "sh", "while :; do echo tick; sleep 0.02; done").returncode == 0
    wait_until(lambda: "tick" in screen_text(in_tiki_env), what="the ticking loop")
    feed = Screen.feed
    broken = {"on": True}

    def always_fail(self, data):
        if broken["on"]:
            raise ValueError("emulator broken")
        return feed(self, data)

    monkeypatch.setattr(Screen, "feed", always_fail)
    terminal = bash_host.workspace.get("sh").get(timeout=5).terminal
    status = wait_until(lambda: (s := terminal.status().get(timeout=5))["failed"] and s, 20,
                        what="the tab to be marked failed")
    assert status["failed"].startswith("reader: ValueError: emulator broken"), status
    refused = tiki(in_tiki_env, "terminal-send", "sh", "echo nope")
    assert refused.returncode == 1 and "tab 'sh' has failed (reader: ValueError" in refused.stderr, refused.stderr
    assert "terminal-restart sh" in refused.stderr
    # The host itself serves on, and a restart recovers the tab.
    assert tiki(in_tiki_env, "terminal-list").returncode == 0
    broken["on"] = False
    assert tiki(in_tiki_env, "terminal-restart", "sh").returncode == 0, "restart"
    assert terminal.status().get(timeout=5)["failed"] is None
    assert tiki(in_tiki_env, "terminal-send", "sh", "echo healed-$((3*3))").returncode == 0
    wait_until(lambda: "healed-9" in screen_text(in_tiki_env), what="output after the restart")


def test_a_writer_failure_fails_the_waiting_send_and_the_next_send_works(bash_host, in_tiki_env, monkeypatch):
    from tikitaka.actors.tabs import terminal_io

    write_one = terminal_io.TerminalThreads._write_one
    failures = []

    def fail_once(self, generation, data, ticket):
        if b"WFAIL" in data and not failures:
            failures.append(data)
            raise RuntimeError("writer broke")
        return write_one(self, generation, data, ticket)

    monkeypatch.setattr(terminal_io.TerminalThreads, "_write_one", fail_once)
    refused = tiki(in_tiki_env, "terminal-send", "sh", "echo WFAIL")
    assert refused.returncode != 0 and "writer failed: RuntimeError: writer broke" in refused.stderr, refused.stderr
    assert tiki(in_tiki_env, "terminal-send", "sh", "echo wrote-$((5+5))").returncode == 0
    wait_until(lambda: "wrote-10" in screen_text(in_tiki_env), what="output after the writer restart")
