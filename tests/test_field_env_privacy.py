"""Field test: what another user on the machine can read. The event log and host.log are
private (0600) because they hold what the tabs and peers said; the coordinator's run
transcripts hold more than either -- the tab screens `read_terminal` returned, the prompt,
the answer -- and sit in the same state directory. A real `tiki serve`, the real `tiki ask`,
the model faked."""

from __future__ import annotations

import stat
from pathlib import Path

from conftest import BASH_TAB, event_log
from fake_ollama import Reply


def test_a_run_transcript_that_holds_a_tab_screen_is_private(serve, fake_env, fake):
    host = serve(BASH_TAB, env=fake_env)
    assert host.run("terminal-send", "sh", "echo secret-$((6*7))-token").returncode == 0
    host.wait_text("sh", "secret-42-token")
    fake.script(Reply.action("read_terminal", tab="sh"), Reply.action("done", message="read it"))
    result = host.run("ask", "what does the sh tab show?")
    assert result.returncode == 0, result.stderr
    state = Path(fake_env["TIKI_STATE_DIR"])
    transcripts = sorted((state / "transcripts").glob("runs-*.jsonl"))
    assert transcripts, f"no transcript under {state}"
    assert "secret-42-token" in transcripts[0].read_text()  # the tab's screen is in it
    events = event_log(fake_env)
    assert stat.S_IMODE(events.stat().st_mode) == 0o600  # (the event log is private, as documented)
    mode = stat.S_IMODE(transcripts[0].stat().st_mode)
    assert not mode & 0o077, (
        f"{transcripts[0].name} is mode {mode:04o}: any user on the machine can read the tab screens and "
        "prompts it holds (events.jsonl and host.log are 0600)")
    for directory in (state, state / "transcripts"):  # made by the host: private, as XDG asks
        mode = stat.S_IMODE(directory.stat().st_mode)
        assert not mode & 0o077, f"{directory} was made mode {mode:04o}"
