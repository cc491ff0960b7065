"""What a tab said while nobody looked is still said when a UI comes back: a tab whose agent
finished (`done`) or whose program rang the bell while no UI showed it keeps an `unseen` mark
in the host, in `terminal-list` and in the tab rows a UI gets, until a UI shows the tab (then
every attached UI drops its badge: the user has seen it).

Before, the badges lived only in the UI that heard the notice: detach, let Codex finish or a
job ring, attach again -- and nothing said which tab had news. Here: a real `tiki serve`, the
real CLI, UI sessions over the host's socket, and the real `tiki` UI in a tmux pane detached
and attached with the prefix."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import TIKI, wait_until
from tmux_outer import Outer
from ui_protocol_helpers import Session

BASH = '[[tab]]\nname = "{}"\ncommand = ["bash", "--norc", "--noprofile"]\n'
TABS = BASH.format("sh") + BASH.format("bg") + BASH.format("job")


def tiki(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, *args], env=env, capture_output=True, text=True, timeout=60)


def rows(env: dict[str, str]) -> dict[str, dict]:
    listed = tiki(env, "terminal-list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"]: row for row in json.loads(listed.stdout)["terminals"]}


def marks(env: dict[str, str]) -> dict[str, str | None]:
    return {name: row["unseen"] for name, row in rows(env).items()}


def news_while_nobody_looks(env: dict[str, str]) -> None:
    """`bg` rings the bell and `job` works 3.5 s, then is idle: `done` (notify.done_after is 3 s)."""
    for name in ("bg", "job"):
        assert tiki(env, "terminal-wait", name, "--until", "idle", "--timeout-ms", "15000").returncode == 0
    assert tiki(env, "terminal-send", "bg", r"printf 'ring\a'; echo ' rang'").returncode == 0
    assert tiki(env, "terminal-send", "job", "sleep 3.5; echo built-$((6*7))").returncode == 0
    wait_until(lambda: "ring rang" in tiki(env, "terminal-read", "bg").stdout, 10, 0.1, what="bg's bell")
    wait_until(lambda: "built-42" in tiki(env, "terminal-read", "job").stdout, 15, 0.1, what="job's end")
    for name in ("bg", "job"):  # (its detector has looked since: `done` is said as it reads idle)
        assert tiki(env, "terminal-wait", name, "--until", "idle", "--timeout-ms", "15000").returncode == 0


def test_news_while_no_ui_is_attached_waits_in_the_tab_rows_until_a_ui_shows_the_tab(serve, tiki_env):
    serve(TABS)
    assert marks(tiki_env) == {"sh": None, "bg": None, "job": None}
    news_while_nobody_looks(tiki_env)
    wait_until(lambda: marks(tiki_env) == {"sh": None, "bg": "bell", "job": "done"}, 10, 0.1,
               what="bg marked bell and job marked done")
    listed = tiki(tiki_env, "terminal-list").stdout.splitlines()
    assert [line for line in listed if "unseen" in line] == [
        next(line for line in listed if " bg " in line), next(line for line in listed if " job " in line)]
    assert "(bell, unseen)" in next(line for line in listed if " bg " in line)
    assert "(done, unseen)" in next(line for line in listed if " job " in line)

    first = Session(tiki_env)  # attached, showing no tab yet: what it is told
    try:
        assert {t["name"]: t["unseen"] for t in first.hello["tabs"]} == {"sh": None, "bg": "bell", "job": "done"}
        first.client.watch(first.tabs["bg"])  # the user shows bg: its news is seen
        first.next("screen")
        first.next("tabs", where=lambda e: {t["name"]: t["unseen"] for t in e["tabs"]}["bg"] is None)
        assert marks(tiki_env) == {"sh": None, "bg": None, "job": "done"}

        # A bell in the tab a UI shows is heard there: no mark (the UI's own notice says it).
        assert tiki(tiki_env, "terminal-send", "bg", r"printf 'again\a'; echo ' rang'").returncode == 0
        first.next("agent_notice", where=lambda e: e["name"] == "bg" and e["reason"] == "bell")
        assert marks(tiki_env)["bg"] is None
    finally:
        first.client.close()

    second = Session(tiki_env)  # a UI attaching later: what is still unseen
    try:
        assert {t["name"]: t["unseen"] for t in second.hello["tabs"]} == {"sh": None, "bg": None, "job": "done"}
    finally:
        second.client.close()


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_detach_let_tabs_finish_and_ring_attach_again_and_the_tab_bar_says_so(tiki_env, tmp_path):
    outer = Outer(tiki_env)
    try:
        outer.start_ui(tmp_path / "ws.toml", TABS)  # sh in front
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        news_while_nobody_looks(tiki_env)
        outer.clear("w0")
        outer.tiki("w0")
        tab_bar = outer.wait("w0", "✓ done").splitlines()[0]
        assert tab_bar.index("bg") < tab_bar.index("* bell") < tab_bar.index("job") < tab_bar.index("✓ done"), tab_bar
        outer.keys("w0", "C-\\", "2")  # bg shown: heard
        wait_until(lambda: "* bell" not in outer.screen("w0").splitlines()[0], 10, 0.1, what="bg's badge cleared")
        assert "✓ done" in outer.screen("w0").splitlines()[0]  # job not shown yet
        outer.keys("w0", "C-\\", "d")
        outer.wait("w0", "TIKI-EXIT=0")
        outer.clear("w0")
        outer.tiki("w0")
        tab_bar = outer.wait("w0", "✓ done").splitlines()[0]
        assert "* bell" not in tab_bar  # seen before the detach: not news again

        outer.window("w1")  # a second UI shows job: seen, so the first UI's badge goes too
        outer.tiki("w1", "--tab", "job")
        outer.wait("w1", "built-42")
        wait_until(lambda: "✓ done" not in outer.screen("w0").splitlines()[0], 10, 0.1, what="job's badge cleared in w0")
    finally:
        subprocess.run([TIKI, "shutdown"], env=tiki_env, capture_output=True, timeout=60)
        outer.close()
