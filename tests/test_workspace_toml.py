"""Saving a workspace keeps the user's file: only the tabs that changed change (the field
case, through a real host, is in test_lifecycle_field_workspace.py); here the edges of the
merge, each read back as the host reads a workspace."""

from __future__ import annotations

from pathlib import Path

from tikitaka.actors.tabs.workspace_file import TabEntry, load_workspace, save_workspace

MINE = """# team tabs
[[tab]]
name = "a"   # first
command = ["cat"]

[[tab]]
name = "b"
command = ["cat"]
"""


def entry(name: str, cwd: Path, command: tuple[str, ...] = ("cat",), role: str = "shell") -> TabEntry:
    return TabEntry(name, list(command), str(cwd), role)


def test_one_of_two_alike_tabs_renamed_keeps_the_other_and_the_comments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiki.toml"
    path.write_text(MINE)
    save_workspace(path, [entry("a", tmp_path), entry("c", tmp_path)])
    text = path.read_text()
    assert text == MINE.replace('name = "b"', 'name = "c"'), text
    assert [e.name for e in load_workspace(path)] == ["a", "c"]


def test_tabs_in_another_order_keep_their_comments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiki.toml"
    path.write_text(MINE)
    save_workspace(path, [entry("b", tmp_path), entry("a", tmp_path)])
    assert [e.name for e in load_workspace(path)] == ["b", "a"]
    assert 'name = "a"   # first' in path.read_text()


def test_a_changed_field_is_set_and_a_role_the_command_implies_is_left_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiki.toml"
    path.write_text(MINE)
    save_workspace(path, [entry("a", tmp_path / "sub"), entry("b", tmp_path, role="peer"),
                          entry("ai", tmp_path, ("claude",), "peer")])
    tabs = {e.name: e for e in load_workspace(path)}
    assert tabs["a"].cwd == str(tmp_path / "sub") and tabs["b"].role == "peer"
    text = path.read_text()
    assert text.startswith("# team tabs\n") and text.count("role =") == 1  # b's; claude is a peer anyway
    assert text.endswith('\n\n[[tab]]\nname = "ai"\ncommand = ["claude"]\n'), text


def test_a_file_that_is_not_toml_any_more_is_written_afresh(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiki.toml"
    for broken in ("[[tab]\nname = ", "tab = 5\n", "\x00\x01 not text"):
        path.write_text(broken)
        save_workspace(path, [entry("a", tmp_path)])
        assert [(e.name, e.command) for e in load_workspace(path)] == [("a", ["cat"])]


def test_with_the_hosts_directory_deleted_every_directory_is_written_out(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    path = tmp_path / "tiki.toml"
    save_workspace(path, [entry("a", tmp_path)])
    assert f'cwd = "{tmp_path}"' in path.read_text()


def test_a_file_with_windows_line_ends_keeps_them_for_the_tabs_added(tmp_path, monkeypatch):
    """A workspace checked out on Windows (git's autocrlf) ends its lines with CRLF: a tab added
    came with bare LFs, and the file had two kinds of line end."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiki.toml"
    path.write_bytes(MINE.replace("\n", "\r\n").encode())
    save_workspace(path, [entry("a", tmp_path), entry("b", tmp_path), entry("ai", tmp_path, ("claude",), "peer")])
    data = path.read_bytes()
    assert b'name = "ai"' in data
    assert data.count(b"\n") == data.count(b"\r\n"), data
    assert data.startswith(MINE.replace("\n", "\r\n").encode())
    assert [e.name for e in load_workspace(path)] == ["a", "b", "ai"]


INLINE = """# tabs on one line each
tab = [
    {name = "a", command = ["cat"]},  # first
    {name = "b", command = "cat"},
]
"""


def test_tabs_written_as_an_array_of_inline_tables_stay_so(tmp_path, monkeypatch):
    """`tab = [{...}, {...}]` is as valid as `[[tab]]` tables; a save wrote the whole file
    afresh as tables, its comments gone."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tiki.toml"
    path.write_text(INLINE)
    save_workspace(path, [entry("a", tmp_path), entry("c", tmp_path), entry("ai", tmp_path, ("claude",), "peer")])
    text = path.read_text()
    assert text.startswith('# tabs on one line each\ntab = [\n    {name = "a", command = ["cat"]},  # first\n'), text
    assert '{name = "c", command = "cat"}' in text and "[[tab]]" not in text, text  # b renamed
    assert [(e.name, e.command, e.role) for e in load_workspace(path)] == [
        ("a", ["cat"], "shell"), ("c", ["cat"], "shell"), ("ai", ["claude"], "peer")]
    save_workspace(path, [entry("a", tmp_path), entry("ai", tmp_path, ("claude",), "peer")])  # c closed
    assert [e.name for e in load_workspace(path)] == ["a", "ai"]
    assert "# first" in path.read_text() and "[[tab]]" not in path.read_text(), path.read_text()
    save_workspace(path, [entry("ai", tmp_path, ("claude",), "peer"), entry("a", tmp_path)])  # in another order
    assert [e.name for e in load_workspace(path)] == ["ai", "a"] and "[[tab]]" not in path.read_text()
