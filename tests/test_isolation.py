"""The suite never reaches the user's own tikitaka: a test that starts a host in process takes
its socket, config and state directories from the environment, and with the user's (or a
developer's field session's) TIKI_SOCKET inherited, it met their running host ("a tiki host is
already running") -- or, with none running, would have served on their socket and written their
workspace and event log. Found when a CI run inherited a field session's environment."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import INHERITED


def test_a_test_without_fixtures_sees_fresh_paths_of_its_own_not_the_inherited_ones():
    for key in ("TIKI_SOCKET", "TIKI_CONFIG_DIR", "TIKI_STATE_DIR"):
        value = os.environ.get(key, "")
        assert value.startswith(tempfile.gettempdir()) and value != INHERITED.get(key), (key, value)
        assert not os.path.exists(value) or not os.listdir(value) if key != "TIKI_SOCKET" else not os.path.exists(value)


def test_the_suites_own_knobs_reach_the_tests_that_read_them(tmp_path):
    """`TIKI_FUZZ_UI=20000 pytest ...` (and the other knobs the test docstrings offer for a long
    run by hand: TIKI_FUZZ_*, TIKI_FIELD_*, TIKI_VT_*) ran the short version: the fixture above
    took every TIKI_* variable away, knobs with tikitaka's own. Only tikitaka's go."""
    probe = tmp_path / "test_probe.py"
    probe.write_text("import os\n\ndef test_probe():\n"
                     "    assert os.environ.get('TIKI_FUZZ_UI') == '7' and os.environ.get('TIKI_FIELD_CTX') == '8'\n"
                     "    assert os.environ.get('TIKI_VT_SEED') == '9' and os.environ['TIKI_SOCKET'] != '/nowhere'\n")
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": str(here), "TIKI_FUZZ_UI": "7", "TIKI_FIELD_CTX": "8", "TIKI_VT_SEED": "9",
           "TIKI_SOCKET": "/nowhere"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                          "--rootdir", str(tmp_path), str(probe)], env=env, cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
