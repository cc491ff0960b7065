"""The suite never reaches the user's own tikitaka: a test that starts a host in process takes
its socket, config and state directories from the environment, and with the user's (or a
developer's field session's) TIKI_SOCKET inherited, it met their running host ("a tiki host is
already running") -- or, with none running, would have served on their socket and written their
workspace and event log. Found when a CI run inherited a field session's environment."""

from __future__ import annotations

import os
import tempfile

from conftest import INHERITED


def test_a_test_without_fixtures_sees_fresh_paths_of_its_own_not_the_inherited_ones():
    for key in ("TIKI_SOCKET", "TIKI_CONFIG_DIR", "TIKI_STATE_DIR"):
        value = os.environ.get(key, "")
        assert value.startswith(tempfile.gettempdir()) and value != INHERITED.get(key), (key, value)
        assert not os.path.exists(value) or not os.listdir(value) if key != "TIKI_SOCKET" else not os.path.exists(value)
