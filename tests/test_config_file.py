"""Reading config.toml: the prefix key is checked with the rest of the file, and old spellings
are read as before with a notice -- on stderr for the host, into the notes a UI shows."""

from __future__ import annotations

import pytest

from tikitaka.protocol import config_file
from tikitaka.protocol.config_file import SettingsError, parse_settings


@pytest.mark.parametrize("prefix", ["ctrl+t", "ctrl+\\\\", "C-a", "alt+x", "f12", "ctrl+space"])
def test_a_prefix_that_is_a_key_is_taken_as_written(prefix):
    assert parse_settings(f'[keys]\nprefix = "{prefix}"\n', env={}).keys.prefix == prefix.replace("\\\\", "\\")


@pytest.mark.parametrize(("prefix", "words"), [
    ("t", "'t' is a plain character"), ("space", "'space' is a plain character"),
    ("shift+a", "'shift+a' is a plain character"), ("ctrl+nope", "'ctrl+nope' is not a key"),
    ("", "'' is not a key"),
    ("esc", "starts its escape sequences"), ("ctrl+[", "starts its escape sequences"),
    ("alt+[", "starts its escape sequences"), ("alt+O", "starts its escape sequences"),
])
def test_a_prefix_that_could_not_work_is_named_with_the_fix(prefix, words):
    with pytest.raises(SettingsError) as bad:
        parse_settings(f'[keys]\nprefix = "{prefix}"\n', env={})
    message = str(bad.value)
    assert message.startswith("config.toml: keys.prefix: ") and words in message and '"ctrl+t"' in message
    assert "Value error" not in message  # pydantic's words are not the user's


def test_old_spellings_are_read_as_before_and_noted(capsys, monkeypatch):
    monkeypatch.setattr(config_file, "_noticed", set())  # (another test may have said it in this process)
    notes: list[str] = []
    settings = parse_settings('[reactor]\nthink = true\nmodel = "m"\n[ui]\npanel = "bottom"\n', env={}, notes=notes)
    assert (settings.coordinator.model, settings.coordinator.reasoning) == ("m", "on")
    assert len(notes) == 3 and capsys.readouterr().err == ""  # into the notes, not stderr
    assert any("[ui] is not read" in note and "ui.toml" in note for note in notes)
    parse_settings("[coordinator]\nthink = false\n", env={})  # no notes given: stderr, once a process
    parse_settings("[coordinator]\nthink = false\n", env={})
    assert capsys.readouterr().err.count("is now `reasoning") == 1
    assert parse_settings("[coordinator]\nthink = false\n", env={}).coordinator.reasoning == "off"


def test_a_file_nested_too_deeply_for_the_reader_is_named_not_a_crash():
    with pytest.raises(SettingsError, match="nest too deeply"):
        parse_settings("a = " + "[" * 100_000, env={})


def test_the_readme_settings_block_is_a_valid_config_naming_every_setting():
    # The README is where users copy their config.toml from: every key there must parse, and
    # every setting the code has must be there (a new one left out is a setting nobody finds).
    import re
    from pathlib import Path

    from tikitaka.protocol.settings import Settings

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Settings\n.*?```toml\n(.*?)```", readme, re.S)
    assert block, "README.md has no ```toml block under ## Settings"
    text = block.group(1)
    parse_settings(text, env={})  # raises SettingsError naming the bad key
    documented = set()
    section = ""
    for line in text.splitlines():
        if match := re.match(r"\[(\w+)\]", line):
            section = match.group(1)
        elif match := re.match(r"(\w+)\s*=", line):
            documented.add(f"{section}.{match.group(1)}")
    fields = {f"{name}.{key}" for name, info in Settings.model_fields.items()
              for key in info.annotation.model_fields}  # type: ignore[union-attr]
    assert sorted(fields - documented) == []
