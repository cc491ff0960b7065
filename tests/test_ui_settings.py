"""A UI's config.toml is checked by the host it attaches to (UI protocol 3): the real `tiki`
in a tmux window names a fault in it and starts nothing, a prefix set in it is the UI's
prefix, and old spellings show in the agent panel. Through the protocol: `settings` up, `keys`
and `notes` in `hello`, a refusal that names the fault."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import BASH_TAB, TIKI
from ipc_helpers import connect
from tmux_outer import Outer

from tikitaka.app.ui_client import HostError, UiClient
from tikitaka.protocol import ui

BASH = '[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n'


def attach(env: dict[str, str], settings: str | None) -> dict:
    client = UiClient(Path(env["TIKI_SOCKET"]), client="test")
    try:
        return client.connect(80, 24, settings=settings)
    finally:
        client.close()


def test_the_host_checks_the_settings_a_ui_sends_and_answers_with_its_keys(serve):
    host = serve(BASH_TAB)
    assert attach(host.env, None)["keys"] == {"prefix": "ctrl+\\"}  # the host's own
    assert attach(host.env, "")["keys"] == {"prefix": "ctrl+\\"}  # no file: the defaults
    hello = attach(host.env, '[keys]\nprefix = "ctrl+t"\n[reactor]\nmodel = "m"\n')
    assert hello["keys"] == {"prefix": "ctrl+t"}
    assert [note for note in hello["notes"] if "[reactor] is now called [coordinator]" in note]
    for text, words in (('[keys]\nprefix = "t"\n', "'t' is a plain character"),
                        ('[keys]\nprefix = "ctrl+nope"\n', "'ctrl+nope' is not a key"),
                        ("[keys\n", "config.toml is not valid TOML"),
                        ('[terminal]\nscrollback = "lots"\n', "terminal.scrollback")):
        with pytest.raises(HostError) as refused:
            attach(host.env, text)
        assert words in refused.value.message and refused.value.code == "bad_request"
    conn = connect(host.env)  # a UI that speaks protocol 2 is told which one to use
    conn.sendall(json.dumps({"id": "u", "op": "ui.attach", "args": {"version": 2}}).encode() + b"\n")
    reply = json.loads(conn.makefile("rb").readline())
    assert f"speaks UI protocol {ui.VERSION} and the UI speaks 2" in reply["error"]["message"]


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_tiki_names_a_fault_in_its_config_and_uses_the_prefix_set_there(tiki_env, tmp_path):
    config = Path(tiki_env["TIKI_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[keys]\nprefix = "x"\n')
    outer = Outer(tiki_env)
    try:
        (tmp_path / "ws.toml").write_text(BASH)
        outer.tiki("w0", "--workspace", str(tmp_path / "ws.toml"), cwd=str(tmp_path))  # no host yet
        screen = outer.wait("w0", "TIKI-EXIT=1").replace("\n", "")
        assert f"{config / 'config.toml'}: keys.prefix: 'x' is a plain character" in screen
        assert "Traceback" not in screen
        assert _tiki(tiki_env, "terminal-list").returncode == 3  # no host was started
        (config / "config.toml").write_text("")
        outer.clear("w0")
        outer.start_ui(tmp_path / "ws.toml", BASH)
        outer.keys("w0", "C-\\", "d")  # detach: the host runs on
        outer.wait("w0", "TIKI-EXIT=0")
        (config / "config.toml").write_text('[keys]\nprefix = "ctrl+nope"\n')
        outer.clear("w0")
        outer.tiki("w0")  # a running host refuses it, naming the fault
        screen = outer.wait("w0", "TIKI-EXIT=1").replace("\n", "")
        assert f"{config / 'config.toml'}: keys.prefix: 'ctrl+nope' is not a key" in screen
        (config / "config.toml").write_text("# " + "x" * 300_000 + "\n")  # too large to be settings
        outer.clear("w0")
        outer.tiki("w0")
        assert "has 300,003 characters; settings are at most" in outer.wait("w0", "TIKI-EXIT=1").replace("\n", "")
        (config / "config.toml").write_text('[keys]\nprefix = "ctrl+t"\n[ui]\npanel = "bottom"\n')
        outer.clear("w0")
        outer.tiki("w0")
        outer.wait("w0", "Ctrl+t ? help")
        assert "[ui] is not read" in outer.wait("w0", "ui.toml")  # the notice, in the agent panel
        outer.keys("w0", "C-t", "d")  # the prefix set in the file detaches
        outer.wait("w0", "TIKI-EXIT=0")
    finally:
        _tiki(tiki_env, "shutdown")
        outer.close()


def _tiki(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TIKI, *args], env=env, capture_output=True, text=True, timeout=60)
