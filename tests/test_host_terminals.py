"""The terminal host through the real `tiki` CLI against a real `tiki serve` (issue 2)."""

from __future__ import annotations

import concurrent.futures
import sys

from conftest import BASH_TAB, wait_until

PY_TAB = '[[tab]]\nname = "py"\ncommand = ["python3", "-q", "-i"]\n'


def test_bash_and_python_tabs_take_input_and_show_output(serve):
    host = serve(BASH_TAB + PY_TAB)
    assert host.run("terminal-send", "sh", "echo out-$((6*7))").returncode == 0
    host.wait_text("sh", "out-42")
    host.wait_text("py", ">>>")
    assert host.run("terminal-send", "py", "print(sum(range(10)), 'py-ok')").returncode == 0
    host.wait_text("py", "45 py-ok")


def test_terminal_list_json_shape(serve):
    host = serve(BASH_TAB)
    tabs = host.json("terminal-list")["terminals"]
    assert [t["name"] for t in tabs] == ["sh"]
    tab = tabs[0]
    assert set(tab) == {"id", "name", "command", "cwd", "role", "running", "exit_code", "activity", "active", "failed",
                        "watched", "unseen", "agent"}
    assert tab["failed"] is None and tab["watched"] is False and tab["unseen"] is None  # no UI shows it; no news
    assert tab["role"] == "shell" and tab["running"] is True and tab["exit_code"] is None
    assert tab["activity"] in ("idle", "busy") and tab["active"] is True
    assert set(tab["agent"]) == {"kind", "state", "since", "reason"} and tab["agent"]["kind"] == "shell"


def test_korean_text_round_trips(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo 안녕하세요-$((1+1))")
    text = host.wait_text("sh", "안녕하세요-2")
    assert "안녕하세요-2" in text


def test_alternate_screen_leaves_primary_as_it_was(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo before-alt")
    host.wait_text("sh", "before-alt")
    host.run("terminal-send", "sh", r"printf '\e[?1049h\e[2J\e[Halt-con''tent'; read x; printf '\e[?1049l'")
    wait_until(lambda: host.json("terminal-read", "sh")["alt_screen"], what="alternate screen")
    during = host.json("terminal-read", "sh")
    assert "alt-content" in during["text"] and "before-alt" not in during["text"]
    host.run("terminal-key", "sh", "enter")
    wait_until(lambda: not host.json("terminal-read", "sh")["alt_screen"], what="back on primary")
    host.run("terminal-send", "sh", "echo after-alt")
    text = host.wait_text("sh", "after-alt", lines=400)
    assert "before-alt" in text and "alt-content" not in text


def test_ctrl_c_interrupts_sleep(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "sleep 300; echo sleep-fin''ished")
    wait_until(lambda: "sleep 300" in host.read("sh"), what="sleep started")
    assert host.run("terminal-key", "sh", "ctrl+c").returncode == 0
    host.run("terminal-send", "sh", "echo interrupted-$((2+3))")
    text = host.wait_text("sh", "interrupted-5")
    assert "sleep-finished" not in text


def test_tab_env_names_the_tab_and_gives_tiki(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", 'echo "tab=$TIKI_TAB term=$TERM tmux=${TMUX:-none}"; tiki --version')
    text = host.wait_text("sh", "tikitaka ")
    assert "tab=sh term=xterm-256color tmux=none" in text


def test_forty_concurrent_reads_all_succeed(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo concurrent-marker")
    host.wait_text("sh", "concurrent-marker")
    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        results = list(pool.map(lambda _: host.run("terminal-read", "sh"), range(40)))
    assert all(r.returncode == 0 and "concurrent-marker" in r.stdout for r in results), [
        r.stderr for r in results if r.returncode
    ]


def test_exit_code_shown_and_last_screen_readable(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo last-words; exit 3")
    tab = wait_until(lambda: (t := host.json("terminal-list")["terminals"][0]) and not t["running"] and t,
                     what="tab exited")
    assert tab["exit_code"] == 3
    assert "last-words" in host.read("sh")
    refused = host.run("terminal-send", "sh", "echo x")
    assert refused.returncode == 1 and "exited (code 3)" in refused.stderr
    assert host.run("terminal-restart", "sh").returncode == 0
    host.run("terminal-send", "sh", "echo reborn")
    host.wait_text("sh", "reborn")


def test_new_close_and_unknown_tab(serve):
    host = serve(BASH_TAB)
    created = host.run("terminal-new", "second", "--", "bash", "--norc")
    assert created.returncode == 0, created.stderr
    assert [t["name"] for t in host.json("terminal-list")["terminals"]] == ["sh", "second"]
    duplicate = host.run("terminal-new", "SECOND")
    assert duplicate.returncode == 1 and "already exists" in duplicate.stderr
    assert host.run("terminal-close", "Second").returncode == 0  # names are case-insensitive
    assert [t["name"] for t in host.json("terminal-list")["terminals"]] == ["sh"]
    unknown = host.run("terminal-read", "secnd")
    assert unknown.returncode == 1 and "no tab named 'secnd'; tabs are: sh" in unknown.stderr
    missing = host.run("terminal-new", "ghost", "--", "no-such-program-xyz")
    assert missing.returncode == 1 and "no-such-program-xyz" in missing.stderr


def test_tab_changes_persist_to_the_workspace(serve):
    host = serve(BASH_TAB)
    host.run("terminal-new", "extra", "--", "bash", "--norc")
    host.run("terminal-rename", "extra", "kept")
    saved = host.workspace.read_text()
    assert 'name = "kept"' in saved and 'name = "sh"' in saved
    host.stop()
    again = serve(saved)
    assert [t["name"] for t in again.json("terminal-list")["terminals"]] == ["sh", "kept"]


def test_terminal_wait_idle_and_timeout(serve):
    host = serve(BASH_TAB)
    ok = host.run("terminal-wait", "sh", "--idle-ms", "200", "--timeout-ms", "10000")
    assert ok.returncode == 0, ok.stderr
    host.run("terminal-send", "sh", "while true; do echo busy; sleep 0.05; done")
    timed_out = host.run("terminal-wait", "sh", "--idle-ms", "1000", "--timeout-ms", "1500")
    assert timed_out.returncode == 4 and "still printing" in timed_out.stderr
    host.run("terminal-key", "sh", "ctrl+c")


def test_key_names_are_checked_before_sending(serve):
    host = serve(BASH_TAB)
    bad = host.run("terminal-key", "sh", "enter", "ctrl+shift+nope")
    assert bad.returncode == 1 and "ctrl+a" in bad.stderr


def test_no_host_and_usage_exit_codes(tiki_env, serve):
    import subprocess

    from conftest import TIKI

    no_host = subprocess.run([TIKI, "terminal-list"], env=tiki_env, capture_output=True, text=True)
    assert no_host.returncode == 3 and "tiki serve" in no_host.stderr
    usage = subprocess.run([TIKI, "terminal-read"], env=tiki_env, capture_output=True, text=True)
    assert usage.returncode == 2


def test_terminal_send_uses_bracketed_paste_when_enabled(serve, tmp_path):
    script = tmp_path / "paste_probe.py"
    script.write_text(
        "import sys, tty\n"
        "sys.stdout.write('\\x1b[?2004hREADY\\n'); sys.stdout.flush()\n"
        "tty.setraw(0)\n"
        "data = sys.stdin.buffer.read1(100)\n"
        "print('GOT', repr(data), flush=True)\n"
    )
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", f"python3 {script}")
    host.wait_text("sh", "READY")
    host.run("terminal-send", "sh", "pasted", "--no-enter")
    text = host.wait_text("sh", "GOT")
    assert r"GOT b'\x1b[200~pasted\x1b[201~'" in text, text


def test_terminal_new_keeps_its_options_and_the_childs_double_dashes(serve, tmp_path):
    # Catalogue item 13: options after the name were taken for the command, and every `--`
    # inside the child's command was deleted.
    host = serve(BASH_TAB)
    where = tmp_path / "elsewhere"
    where.mkdir()
    created = host.run("terminal-new", "second", "--cwd", str(where))
    assert created.returncode == 0, created.stderr
    tab = next(t for t in host.json("terminal-list")["terminals"] if t["name"] == "second")
    assert tab["cwd"] == str(where)
    created = host.run("terminal-new", "dashes", "--role", "shell", "--", "printf", "[%s]", "a", "--", "b")
    assert created.returncode == 0, created.stderr
    host.wait_text("dashes", "[a][--][b]")
    created = host.run("terminal-new", "--cwd", str(where), "third", "--", "bash", "--norc")
    assert created.returncode == 0, created.stderr


def test_an_ai_cli_under_a_wrapper_is_a_peer_as_it_is_the_agent_it_runs(serve):
    """The role a tab gets by default looks through wrappers as the agent-state kind does: `env
    HOME=... claude` was a shell tab (no handshake, a consent question for every send) while
    its state was Claude's; the names come from one list (Antigravity's `agy` was missing)."""
    host = serve(BASH_TAB)
    for name, command in (("c", ["env", "HOME=/nowhere", "claude", "--version"]),
                          ("g", ["env", "agy", "--version"]),
                          ("x", ["nice", "claude-code", "--version"]),
                          ("p", [sys.executable, "-c", "print('claude')"])):
        created = host.run("terminal-new", name, "--", *command)
        assert created.returncode == 0, created.stderr
    roles = {t["name"]: t["role"] for t in host.json("terminal-list")["terminals"]}
    assert roles == {"sh": "shell", "c": "peer", "g": "peer", "x": "peer", "p": "shell"}, roles
