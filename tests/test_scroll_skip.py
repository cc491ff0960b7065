"""Lines that scroll past unseen are not drawn (terminals/scroll_skip, issue 13's throughput):
the screen must come out exactly as if every line had been drawn. The same streams, cut at
the same random places (inside `\\r\\n` pairs, SGRs and UTF-8 characters), go into a screen
that skips and one that draws everything, and at random moments (a look draws what is held
back, so looking after every chunk would never let lines pile up) everything a user or a
program sees must agree: the styled rows, the styled and plain history, the text read back,
the cursor, the pen the next output is drawn with, and what the scanners found (the title,
the modes, notifications: plain lines count as quiet without their look)."""

from __future__ import annotations

import random

import pytest
from vt_fuzz import generate

from tikitaka.terminals import screen as screen_module
from tikitaka.terminals import screen_held, scroll_skip
from tikitaka.terminals.screen import Screen

COLOURS = ["\x1b[31m", "\x1b[1;38;5;208m", "\x1b[38;2;10;200;30m", "\x1b[44m", "\x1b[7m", "\x1b[0m", "\x1b[m",
           "\x1b[0;42m", "\x1b[4:3m"]
WORDS = ["plain", "words", "한국어", "텍스트", "日本語", "• bullet", "— dash …", "seq", "0123456789", "é"]
# What changes how lines scroll, or puts the parser inside a sequence, now and then: a scroll
# region, the alternate screen, autowrap off, insert mode, the line-drawing charset (and back),
# an OSC left open, a CSI cut short, a bare CR or LF, a tab, a zero-width joiner, cursor moves.
RARE = ["\x1b[2;5r", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l",
        "\x1b(0", "\x1b(B", "\x0e", "\x0f", "\x1b]0;left open ", "\x07", "\x1b[3", "\r", "\n", "\t",
        "e\u0301", "\x1b[H", "\x1b[5;3H", "\x1b[2J", "\x1b[3J", "\x1bM", "\x1b[?6h", "\x1b[?6l", "\u009b2A"]


def line(rng: random.Random, cols: int) -> str:
    parts = []
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.4:
            parts.append(rng.choice(COLOURS))
        parts.append(rng.choice(WORDS) + " ")
    if rng.random() < 0.0003:
        parts.append("x" * rng.randint(cols - 2, 3 * cols))  # wider than the screen: it wraps
    return "".join(parts)


def flood(rng: random.Random, lines: int, cols: int, rare: float) -> list[bytes]:
    """Runs of plain lines, with a burst of `RARE` pieces between two runs (a read of its own,
    so the run after it starts in the state it left), on average one every 100/rare lines."""
    out: list[bytes] = []
    run: list[str] = []
    for _ in range(lines):
        run.append(line(rng, cols) + "\r\n")
        if rare and rng.random() < rare / 100:
            out += ["".join(run).encode(), "".join(rng.choice(RARE) for _ in range(rng.randint(1, 3))).encode()]
            run = []
    return [*out, "".join(run).encode()]


def glance(screen: Screen) -> tuple[object, ...]:
    """What a reader polling the last lines and the agent-state detector see (this draws
    nothing held back when the held lines fill what they ask for)."""
    return screen.text(1), screen.text(screen.rows), screen.cursor, screen.visible_rows()


def frame_agrees(fast: Screen, slow: Screen) -> bool:
    """A UI's frame (the rows changed since the last one: under a flood, drawn apart from the
    held lines, which stay held) shows what the screen that drew every line shows."""
    update, truth = fast.take_update(), slow.snapshot()
    return update.cursor == truth.cursor and all(update.lines[row] == truth.lines[row] for row in update.lines)


def seen(screen: Screen) -> dict[str, object]:
    update = screen.snapshot()
    screen.feed(b"P")  # drawn with the pen the output left
    return {
        "lines": update.lines, "cursor": update.cursor, "text": screen.text(60),
        "history": screen.history_lines(0, screen.total_lines), "dropped": screen.dropped,
        "after": screen.snapshot().lines,
        "title": screen.title, "modes": screen.modes, "clipboard": screen.take_clipboard(),
        "notes": [(n.kind, n.text) for n in screen.agent.take_notifications()],
    }


class Counting:
    """pyavt's Vt, counting the characters fed to it."""

    def __init__(self, vt):
        self._vt, self.fed = vt, 0

    def feed_str(self, text):
        self.fed += len(text)
        return self._vt.feed_str(text)

    def __getattr__(self, name):
        return getattr(self._vt, name)


def both_ways(segments: list[bytes], rng: random.Random, cols: int = 64, rows: int = 6, scrollback: int = 300,
              look: float = 0.02, glances: float = 0.2, frames: float = 0.1) -> tuple[int, int]:
    """Feed `segments` in random cuts (never across two) to a screen that skips and one that
    does not; compare now and then and at the end. Returns the characters each fed pyavt."""
    fast, slow = Screen(cols, rows, scrollback), Screen(cols, rows, scrollback)
    slow._skip_scroll = False
    slow._check_quiet = None  # and every scanner looks at every chunk (plain lines are quiet)
    counters = fast._vt, slow._vt = Counting(fast._vt), Counting(slow._vt)
    may_wrap = any(len(line) > cols // 2 for data in segments for line in data.split(b"\r\n"))
    chunks = []
    for data in segments:
        pos = 0
        while pos < len(data):
            step = rng.choice((1, 2, 3, 7, 100, 700, 4096, 20000))
            chunks.append(data[pos:pos + step])
            pos += step
    for pos, chunk in enumerate(chunks):
        assert fast.feed(chunk) == slow.feed(chunk), f"replies differ at chunk {pos}"
        for screen, counter in zip((fast, slow), counters):  # (ED 3 gives a screen a new pyavt)
            if screen._vt is not counter:
                counter._vt, screen._vt = screen._vt, counter
        if rng.random() < glances:
            assert glance(fast) == glance(slow), f"the last lines differ after chunk {pos}"
        if rng.random() < frames:
            assert frame_agrees(fast, slow), f"a frame differs after chunk {pos}"
        if rng.random() < look or pos == len(chunks) - 1:
            fast.feed(b"\x1b[0m")  # (the pen check in `seen` prints a P: the same pen for what follows)
            slow.feed(b"\x1b[0m")
            ours, truth = seen(fast), seen(slow)
            dropped = ours.pop("dropped"), truth.pop("dropped")
            assert ours == truth, f"screens differ after chunk {pos}"
            # The lines dropped unseen are counted by their line ends: one row each, fewer than
            # drawn when some wrapped (then they were all older than any row still kept).
            assert dropped[0] == dropped[1] or (may_wrap and dropped[0] < dropped[1]), dropped
    return counters[0].fed, counters[1].fed


@pytest.fixture(autouse=True, params=["trim-as-shipped", "trim-always"])
def small_styled_history(monkeypatch, request):
    """50 styled lines and 250 plain ones: lines pile up past both within a short stream. And
    held lines that would fall off the end of the history are dropped as the screen ships
    (after 8192 more) or as soon as one more is held, so that every cut is tried."""
    monkeypatch.setattr(screen_module, "STYLED_HISTORY", 50)
    if request.param == "trim-always":
        monkeypatch.setattr(screen_held, "TRIM_LINES", 1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_plain_flood_comes_out_as_if_every_line_were_drawn(seed):
    rng = random.Random(seed)
    fast, slow = both_ways(flood(rng, 6000, 64, rare=0), rng)
    assert fast < slow / 2  # most lines were skipped (else this compares drawing with drawing)


@pytest.mark.parametrize("seed", [6, 7])
def test_floods_with_inverse_or_underline_left_on_across_line_ends_agree_both_ways(seed):
    """What `tput smso; cat file` prints: the line feeds scroll rows in without the pen's
    inverse or underline (see `pen`), skipping or not -- and the lines are still skipped."""
    rng = random.Random(seed)
    runs = flood(rng, 3000, 64, rare=0)
    on = ["\x1b[7m", "\x1b[4m", "\x1b[0;9m", "\x1b[1;4m"]
    fast, slow = both_ways([piece for run in runs for piece in (rng.choice(on).encode(), run)], rng)
    assert fast < slow / 2


@pytest.mark.parametrize("seed", [4, 5])
def test_floods_full_of_layout_changes_agree_both_ways(seed):
    rng = random.Random(seed)
    both_ways(flood(rng, 8000, 64, rare=0.6), rng, look=0.01)


@pytest.mark.parametrize("state", [
    "\x1b[H", "\x1b[3;1H\x1b[K", "\x1b[2;5r", "\x1b[1;5r\x1b[6;1H", "\x1b[2;6r\x1b[6;1H", "\x1b[?7l", "\x1b[4h",
    "\x1b(0", "\x1b)0\x0e", "\x1b[?1049h", "\x1b]0;a title never ended ", "\x1bP1$r", "\x1b[", "\x1b", "\u009d8;;",
    "\x1b[?1049h\x1b[?1049l\x1b[r\x1b(B",
])
@pytest.mark.parametrize("colours", [True, False])
def test_a_flood_after_each_state_that_changes_how_lines_scroll_agrees_both_ways(state, colours):
    """The run of plain lines right after `state` (in a read of its own): the cursor not on
    the bottom row, a scroll region (with the cursor below it, or on its bottom row), no
    autowrap, insert mode, line drawing, the alternate screen, a string or a sequence left
    open, and all of that undone. Then back to the main screen, whose history must agree."""
    rng = random.Random(state)
    old = "".join(f"\x1b[4{n % 8}mold {n} {'x' * (n % 40)}\r\n" for n in range(40)).encode()
    pen = "\x1b[3{}m" if colours else ""
    run = "".join(f"{pen.format(n % 8)}new {n} {'y' * (n % 50)}\r\n" for n in range(200)).encode()
    for _ in range(3):
        both_ways([old, state.encode(), run, b"tail", b"\x07\x1b\\\x1b[?1049l"], rng, look=0)


@pytest.mark.parametrize("where", [5, 30, 200, 280, 600])
def test_a_line_that_wraps_among_the_lines_that_stay_agrees_both_ways(where):
    """A line wider than the screen `where` lines before the end of a held run of 640: among
    the lines pyavt keeps (56 here), the plain history keeps (250), or older ones."""
    rng = random.Random(where)
    lines = [f"\x1b[3{n % 8}mline {n} 日本語\x1b[0m {'z' * (n % 20)}" for n in range(640)]
    lines[-where] = "wide " + "한국어 텍스트 " * rng.randint(8, 30)
    run = "".join(f"{text}\r\n" for text in lines).encode()
    for _ in range(3):
        both_ways([b"x\r\n" * 10, run], rng, look=0, glances=0.5)


@pytest.mark.parametrize("pen", ["\x1b[41m", "\x1b[1;38;5;208m", "\x1b[7m\x1b[32m", "\x1b[0;44m\x1b[4m", "\x1b[m",
                                 "\x1b[0m\x1b[2m"])
def test_a_pen_set_before_lines_that_fall_off_the_history_colours_those_that_stay(pen):
    """One pen, set among held lines before thousands that set no other (over the magenta
    the screen had before them): the lines that stay are drawn with it, and so is what comes
    after them, however many held lines were dropped."""
    rng = random.Random(pen)
    run = "".join(f"{n} {'w' * (n % 30)}\r\n" for n in range(3000))
    both_ways([b"\x1b[45m", (run[:2000] + pen + run).encode()], rng, look=0, frames=0.3)


@pytest.mark.parametrize("lines", [2000, 2001, 2002])
@pytest.mark.parametrize("per_read", [2, 3])
def test_line_ends_cut_between_every_two_reads_agree_both_ways(lines, per_read):
    """Every read ends inside a `\r\n`: the piece left first after a drop begins with the
    `\n` of a line end whose `\r` was dropped (and counted with the piece it is in). Run
    lengths that leave a drop at every possible distance from the last line end it needs."""
    text = "".join(f"\x1b[3{n % 8}mline {n}\r\n" for n in range(lines)).encode()
    cuts = [i + 1 for i in range(len(text)) if text[i:i + 2] == b"\r\n"][::per_read]
    fast, slow = Screen(64, 6, 300), Screen(64, 6, 300)
    slow._skip_scroll = False
    for start, end in zip([0, *cuts], [*cuts, len(text)]):
        fast.feed(text[start:end])
        slow.feed(text[start:end])
    assert seen(fast) == seen(slow)


@pytest.mark.parametrize("clear", ["\x1b[H\x1b[2J", "\x1b[3;1H", "\x1b[6;1H"])
def test_a_read_that_starts_above_the_bottom_row_is_held_from_the_bottom_row_on(clear):
    """`clear; seq 1 600000`: the first read brings the cursor down from the top and goes on
    for thousands of lines. Only the lines down to the bottom row are drawn; the rest is held."""
    fast, slow = Screen(64, 6, 300), Screen(64, 6, 300)
    slow._skip_scroll = False
    fast._vt, slow._vt = Counting(fast._vt), Counting(slow._vt)
    run = b"".join(b"\x1b[3%dm%d\r\n" % (n % 8, n) for n in range(5000))
    for data in (clear.encode(), b"$ seq 1 5000\r\n" + run[:40000], run[40000:]):
        fast.feed(data)
        slow.feed(data)
    assert fast._vt.fed < slow._vt.fed / 10
    assert seen(fast) == seen(slow)


def test_the_pen_carried_for_dropped_lines_stays_short():
    """However many SGRs the dropped lines set, and however often it is carried again."""
    carried = ""
    for pen in ["\x1b[31m", "\x1b[1m", "\x1b[38;2;1;2;3m", "\x1b[44m", "\x1b[7m"] * 200:
        carried = scroll_skip.carry(carried + "".join(f"{pen}line\r\n" for _ in range(50)), lambda: "\x1b[m")
        assert len(carried) < 40
    assert carried == "\x1b[0m\x1b[0;38:2:1:2:3;44;1;7m"


def test_adversarial_streams_agree_both_ways():
    rng = random.Random(7)
    both_ways([part for seed in range(4) for part in (*flood(rng, 800, 64, rare=0.5), generate(seed, 6000))], rng)


def test_a_flood_seen_by_nobody_is_drawn_when_it_goes_quiet():
    """Held-back output is drawn by `settle` (what the notifier calls once output is quiet)."""
    screen = Screen(50, 6, 300)
    for start in range(0, 2000, 100):
        screen.feed(b"".join(b"line %d\r\n" % i for i in range(start, start + 100)))
    assert screen.unsettled
    screen.settle()
    assert not screen.unsettled
    assert screen.history_lines(0, 1) == [(("line 1695", screen_module.DEFAULT_STYLE),)]
    assert screen.text(2) == "line 1999\n"  # and the cursor's row
    assert screen.cursor[:2] == (5, 0)


def test_the_frame_after_a_flood_says_how_much_history_it_left():
    """Drawing a flood's held lines, the screen knows the history they leave (pyavt's
    scrollback is full) without walking pyavt's lines; the frame says it."""
    screen = Screen(50, 6, 300)
    assert screen.snapshot().history == 0
    for start in range(0, 2000, 100):
        screen.feed(b"".join(b"line %d\r\n" % i for i in range(start, start + 100)))
    screen.feed(b"\x1b[?2004h$ ")  # the prompt: what is held is drawn
    assert screen.snapshot().history == screen.total_lines - screen.rows == 300


def test_seq_sized_output_is_drawn_a_fraction_of_the_lines():
    """`seq 1 600000`'s shape, 120 columns: pyavt draws under a tenth of it."""
    rng = random.Random(8)
    data = b"$ seq 1 60000\r\n" + b"".join(b"%d\r\n" % n for n in range(1, 60001)) + b"$ "
    fast, slow = both_ways([data], rng, cols=120, rows=40, scrollback=10_000, look=0.001)
    assert fast < slow / 10
