"""The one look that lets the screen's scanners skip a chunk (terminals/quiet, issue 13's
throughput): it must never skip a chunk a scanner would act on. The same streams, cut at the
same random places (inside sequences, inside UTF-8 characters), go into two screens, one
with every scanner looking at every chunk; everything a user or a program sees must agree:
the styled rows, the history, the cursor, the title, the modes, the clipboard, the
notifications and the replies to device queries."""

from __future__ import annotations

import random

import pytest
from vt_fuzz import generate

from tikitaka.terminals import agent_state_signals, quiet, sequences, vt_limits
from tikitaka.terminals.screen import Screen

# Pieces of what real programs print, each one something a scanner acts on or must not miss
# when it is cut in two: colours (what most chunks are), CJK, combining marks and ZWJ emoji,
# titles, modes, queries, REP, notifications, clipboard sets, bells.
PIECES = [
    "\x1b[31mred\x1b[0m ", "\x1b[1;38;5;208mbold orange\x1b[0m ", "\x1b[38;2;10;200;30mtrue\x1b[m ",
    "한국어 텍스트 ", "日本語 ", "plain words ", "\r\n", "\r\n", "\r\n", "• bullet — dash … ",
    "e\u0301 ", "n\u0303o ", "\U0001F468\u200d\U0001F469\u200d\U0001F467 ", "\U0001F680 ", "\u200b",
    "\u0301", "\ufe0f", "a\u0308\u0301 ", "\x1b]0;a title\x07", "\x1b]2;other title\x1b\\",
    "\x1b[?1049h", "\x1b[?1049l", "\x1b[?2004h", "\x1b[?2004l", "\x1b[?1000h\x1b[?1006h",
    "\x1b[?1000l", "\x1b[?1h", "\x1b[?1l", "\x1b[6n", "\x1b[c", "\x1b[0c", "\x1b[5n", "x\x1b[200b",
    "y\x1b[70000b", "\x1b]9;Claude needs your permission\x07", "\x1b]777;notify;T;body\x1b\\",
    "\x07", "\x1b]52;c;aGVsbG8=\x07", "\x1b[!p", "\x1bM", "\x1b[2J\x1b[H", "\x1b[10;5H",
    "\x1b[K", "\u009b3b", "tab\there ", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ ",
]


def ordinary_stream(rng: random.Random, count: int) -> bytes:
    """Mostly coloured text, now and then something a scanner acts on."""
    common, rare = PIECES[:10], PIECES[10:]
    return "".join(rng.choice(rare if rng.random() < 0.02 else common) for _ in range(count)).encode()


def seen(screen: Screen) -> dict[str, object]:
    update = screen.snapshot()
    return {
        "lines": update.lines, "cursor": update.cursor, "history": screen.history_lines(0, screen.total_lines),
        "title": screen.title, "modes": screen.modes, "clipboard": screen.take_clipboard(),
        "notes": [(n.kind, n.text) for n in screen.agent.take_notifications()],
    }


def both_ways(data: bytes, rng: random.Random, cols: int = 40, rows: int = 12) -> int:
    """Feed `data` in random cuts to a screen that skips quiet chunks and to one that does not;
    compare after every chunk. Returns how many chunks were quiet."""
    fast, slow = Screen(cols, rows, scrollback=300), Screen(cols, rows, scrollback=300)
    slow._check_quiet = None  # every scanner looks at every chunk
    # Plain lines count as quiet without the look (tests/test_scroll_skip.py compares those).
    fast._skip_scroll = slow._skip_scroll = False
    verdicts: list[bool] = []

    def look(data: bytes, text: str, held: str) -> bool:
        verdicts.append(quiet.is_quiet(data, text, held))
        return verdicts[-1]

    fast._check_quiet = look
    pos = 0
    while pos < len(data):
        step = rng.choice((1, 2, 3, 5, 17, 100, 700, 4096))
        chunk = data[pos:pos + step]
        pos += step
        assert fast.feed(chunk) == slow.feed(chunk), f"replies differ at byte {pos}"
        assert seen(fast) == seen(slow), f"screens differ after byte {pos}"
    return sum(verdicts)


@pytest.mark.parametrize("seed", [1, 2])
def test_quiet_chunks_leave_the_screen_as_every_scanner_would(seed):
    rng = random.Random(seed)
    quiet_chunks = both_ways(ordinary_stream(rng, 3000), rng)
    assert quiet_chunks > 0  # the fast path was taken (else this compares the slow path with itself)


@pytest.mark.parametrize("seed", [11])
def test_adversarial_streams_agree_both_ways(seed):
    both_ways(generate(seed, 60_000), random.Random(seed))


def test_coloured_cjk_output_is_quiet_and_every_trigger_is_not():
    line = "\x1b[32m000123\x1b[0m \x1b[1mbold\x1b[0m 한국어 텍스트 日本語 \x1b[38;5;7mindexed\x1b[0m • tail\r\n"
    text = line * 600
    assert quiet.is_quiet(text.encode(), text)
    for trigger in PIECES[10:]:
        if trigger in ("\x1b[10;5H", "\x1b[K", "tab\there "):
            assert quiet.is_quiet((text + trigger).encode(), text + trigger), repr(trigger)  # nothing to do
            continue
        mixed = text[:5000] + trigger + text[5000:]
        assert not quiet.is_quiet(mixed.encode(), mixed), repr(trigger)


def test_the_look_covers_each_scanners_own_pattern():
    """Every opening a scanner starts on is caught (its own patterns are the reference)."""
    params = ["", "0", "3", "12;3", "1:2", "999999"]
    candidates = [f"\x1b{c}" for c in "]PX^_cM78=>DEH"] + [
        f"\x1b[{p}{f}" for p in params + ["?", "?1049", "!", ">", "="] for f in ["b", "c", "n", "p", "h", "l", "m", "J", "K", "H", "r", " q", "q", "t"]]
    for candidate in candidates:
        text = f"abc{candidate}xyz"
        wanted = any(pattern.search(text) for pattern in (
            sequences._ANY_START, vt_limits._REP, agent_state_signals._ESC_OPENER))
        if wanted:
            assert not quiet.is_quiet(text.encode(), text), repr(candidate)
    for char in ("\x07", "\u009b", "\u0301", "\u200d", "\ufe0f", "\u1160", "\U0001F600", "\U000E0100"):
        text = f"abc{char}xyz"
        assert not quiet.is_quiet(text.encode(), text), repr(char)


@pytest.mark.parametrize("char", ["\u0301", "\u200d", "\ufe0f", "\U0001F680", "\U000E0100"])
def test_a_character_cut_between_two_reads_is_still_seen(char):
    """The chunk that completes a multi-byte character starts with its last bytes only."""
    for cut in range(1, len(char.encode())):
        fast, slow = Screen(20, 4), Screen(20, 4)
        slow._check_quiet = None
        encoded = f"\x1b[32mab\x1b[0me{char}".encode()
        first, second = encoded[:len(encoded) - len(char.encode()) + cut], encoded[len(encoded) - len(char.encode()) + cut:]
        for chunk in (first, second + b"\x1b[31m tail\x1b[0m"):
            fast.feed(chunk)
            slow.feed(chunk)
        assert seen(fast) == seen(slow), (char, cut)
