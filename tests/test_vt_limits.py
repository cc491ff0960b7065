"""A hostile byte stream cannot blow up the host's memory (issue 8, item 9): REP (CSI Ps b,
repeat the preceding character) with a huge count is clamped to a screenful, also when the
sequence is split across reads or uses the 8-bit CSI, and small counts still work."""

from __future__ import annotations

from conftest import BASH_TAB
from term_helpers import rss_mb

from tikitaka.protocol.settings import TerminalSettings


def _lines_of(text: str, char: str) -> int:
    return sum(1 for line in text.splitlines() if line and set(line) == {char})


def test_repeat_attack_keeps_host_memory_bounded(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", "echo warm-up")
    host.wait_text("sh", "warm-up")
    before = rss_mb(host.proc.pid)
    # 300 REPs of 999,999,999 in one write: ~370 MB of RSS on the old code.
    host.run("terminal-send", "sh", r"printf 'x\e[999999999b%.0s' {1..300}; echo rep-''done")
    host.wait_text("sh", "rep-done", timeout=30)
    after = rss_mb(host.proc.pid)
    print(f"\nREP attack x300: host RSS {before:.0f} MB -> {after:.0f} MB")
    assert after - before < 30, f"host RSS grew {after - before:.0f} MB ({before:.0f} -> {after:.0f})"
    # The screen still shows the repeated character, a screenful of it.
    text = host.read("sh", 60)
    assert _lines_of(text, "x") >= 10, text[-500:]


def test_small_repeat_counts_are_exact(serve):
    host = serve(BASH_TAB)
    host.run("terminal-send", "sh", r"printf 'ab\e[5bc|\e[b|\e[0b|\e[3;9bd\n'")
    text = host.wait_text("sh", "c|")
    line = next(line for line in text.splitlines() if line.startswith("abbbbbbc"))
    # 'b' + 5 more; '|' + 1 more (no count); '|' + 1 more (0 counts as 1); '|' + 3 more
    # (only the first parameter counts).
    assert line == "abbbbbbc||||||||d", line


def test_a_split_or_eight_bit_repeat_is_clamped_too(serve):
    host = serve(BASH_TAB)
    # The count arrives in two reads (0.3 s apart): the old code fed the first half, then
    # repeated 999,999,999 mod 65,536 = 51,711 times (hundreds of scrollback lines).
    host.run("terminal-send", "sh", r"clear; printf 'z\e[99999'; sleep 0.3; printf '9999b\n'; echo split-''done")
    text = host.wait_text("sh", "split-done", lines=3000)
    rows = TerminalSettings().rows  # a headless tab keeps the default size
    assert 0 < _lines_of(text, "z") <= rows + 2, _lines_of(text, "z")
    host.run("terminal-send", "sh", r"clear; printf 'w\xc2\x9b99999b\n'; echo c1-''done")
    text = host.wait_text("sh", "c1-done", lines=3000)
    assert 0 < _lines_of(text, "w") <= rows + 2, _lines_of(text, "w")


def test_a_clamped_repeat_leaves_the_screen_as_the_full_repeat_would():
    # Visible equivalence: printing n characters, n far beyond the screen's cells, leaves the
    # same screen and cursor as the clamped count (checked against literal characters).
    import avt

    from tikitaka.terminals.screen import Screen

    cols, rows = 13, 5
    for start in ("", "ab\r\n", "\x1b[3;7H"):
        for n in (cols * rows - 1, cols * rows, cols * rows + 1, 7 * cols * rows + 5, 40 * cols + 3):
            screen = Screen(cols, rows, scrollback=100)
            screen.feed(f"{start}x\x1b[{n}b|".encode())
            reference = avt.Vt(cols, rows, scrollback_limit=100)
            reference.feed_str(f"{start}x" + "x" * n + "|")
            shown = screen.snapshot().lines
            rows_text = ["".join(text for text, _style in shown[row]).rstrip() for row in range(rows)]
            assert rows_text == [line.text.rstrip() for line in reference.view()], (start, n)
            assert screen.cursor[:2] == (reference.cursor.row, reference.cursor.col), (start, n)
    # A count with thousands of digits (more than int() parses) and one split over reads.
    screen = Screen(cols, rows, scrollback=100)
    for chunk in (b"y\x1b[" + b"9" * 3000, b"9" * 3000, b"b!"):
        screen.feed(chunk)
    assert "!" in screen.text(rows) and screen.total_lines <= 2 * rows + 2
