"""The `[coordinator]` settings section and its old name `[reactor]`."""

from __future__ import annotations

import pytest

from tikitaka.protocol.settings import SettingsError, parse_settings


def test_the_coordinator_section_is_read():
    settings = parse_settings('[coordinator]\nmodel = "qwen3:4b"\nmax_turns = 7\n', env={})
    assert settings.coordinator.model == "qwen3:4b" and settings.coordinator.max_turns == 7


def test_the_old_reactor_section_still_works_with_a_one_line_notice(capsys):
    settings = parse_settings('[reactor]\nmodel = "old:1b"\n', env={})
    assert settings.coordinator.model == "old:1b"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[reactor] is now called [coordinator]" in err


def test_both_sections_at_once_name_the_fix():
    with pytest.raises(SettingsError, match=r"move its settings into \[coordinator\]"):
        parse_settings('[reactor]\nmodel = "a"\n[coordinator]\nmodel = "b"\n', env={})
