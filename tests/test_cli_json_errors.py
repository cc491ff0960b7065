"""With `--json` (or `--cells`), a command's failure is one JSON object on stdout as well as the
sentence on stderr, so a script parsing the command's JSON can read why it failed: the real
`tiki` binary, a real host, each way of failing a script meets."""

from __future__ import annotations

import json
import subprocess

from conftest import BASH_TAB, TIKI


def _error(result: subprocess.CompletedProcess[str]) -> dict:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout  # one object, nothing else on stdout
    body = json.loads(lines[0])["error"]
    assert body["exit"] == result.returncode
    return body


def test_json_failures_are_json_on_stdout(serve, tiki_env, tmp_path):
    nowhere = {**tiki_env, "TIKI_SOCKET": str(tmp_path / "nothing-here")}
    no_host = subprocess.run([TIKI, "terminal-list", "--json"], env=nowhere, capture_output=True, text=True,
                             timeout=30)
    body = _error(no_host)
    assert (no_host.returncode, body["code"]) == (3, "no_host") and "tiki serve" in body["message"]
    assert body["message"] in no_host.stderr

    host = serve(BASH_TAB)
    for args in (["terminal-read", "nosuch", "--json"], ["terminal-read", "nosuch", "--cells"],
                 ["explain", "nosuch", "--json"]):
        unknown = host.run(*args)
        body = _error(unknown)
        assert (unknown.returncode, body["code"]) == (1, "unknown_tab"), args
        assert body["tabs"] == ["sh"] and "no tab named 'nosuch'" in body["message"], body
        assert body["message"] in unknown.stderr

    usage = host.run("terminal-read", "--json")  # the tab's name left out: argparse's usage error
    body = _error(usage)
    assert (usage.returncode, body["code"]) == (2, "usage") and "name" in body["message"]
    bad_value = host.run("terminal-read", "sh", "--json", "--lines", "-5")  # refused by the op's schema
    assert (bad_value.returncode, _error(bad_value)["code"]) == (2, "usage")

    # without --json, stdout stays empty on a failure: the sentence is on stderr only
    plain = host.run("terminal-read", "nosuch")
    assert plain.returncode == 1 and plain.stdout == "" and "no tab named" in plain.stderr
    # and a command that worked prints its JSON alone
    listed = host.run("terminal-list", "--json")
    assert listed.returncode == 0 and "error" not in json.loads(listed.stdout)
