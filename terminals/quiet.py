"""Whether a chunk of output needs the screen's scanners at all.

Besides pyavt, every chunk a tab prints goes past four scanners: the REP clamp (`vt_limits`),
the title and mode tracker (`sequences`), the notification finder (`agent_state_signals`) and
the zero-width joiner (`clusters`); the pen's decorations are looked for apart (`pen`). Each
used to look at the whole chunk on its own; on coloured CJK output that was ~1.3 ms per 64 KB
read, as much as pyavt's own parsing. Most
chunks hold nothing any of them acts on, so one look decides for all four: `is_quiet` is True
when no sequence any of them starts on, no BEL, no 8-bit CSI and no character `compose` could
change is in the chunk. Each scanner then only keeps what it holds across reads (a sequence
cut at the end of the chunk) and the chunk goes to pyavt as it is.

The pattern is a superset of what the scanners start on, merged by hand for speed (see below);
tests/test_screen_quiet.py checks it against each scanner's own pattern and feeds the same
streams both ways, comparing the screens.
"""

from __future__ import annotations

import re

from . import clusters

# After an ESC: an OSC/DCS/APC string, RIS, RI, DECKPAM `=`, DECKPNM `>`, `#` (DECALN, with the
# line-size ones) (the notification and mode scanners); after a CSI's parameters: REP (`b`), DA1 (`c`), DSR (`n`); a private (`?`) or
# `!` CSI (DECSET/DECRST, DECSTR, DECRQM); `c` alone (DA1); `>` (DA2, XTVERSION); ED 0, 2, 3;
# `18t` (the text area's size); DECSCUSR (` q`). Some more than the scanners want (DSR 7n, any
# `>` CSI): those chunks just take the long way. One ESC-anchored
# pattern with a possessive parameter run: the regex engine jumps from ESC to ESC and gives up
# on an SGR at its final byte (~0.35 ms per 64 KB of coloured output; the scanners' own
# patterns one after another took ~1.3 ms).
_SEQUENCE = re.compile(r"\x1b(?:[\]cMP_=>#]|\[(?:[?c!>]|[023]?J|\d? q|18t|[0-9:;\x00-\x17\x19\x1c-\x1f\x7f]*+[bcn]))")
_CHARS = ("\x07", "\x9b")  # BEL (a bell), the 8-bit CSI (a REP may follow)


def is_quiet(data: bytes, text: str, held: str = "") -> bool:
    """True when no scanner acts on `text` (`data`, decoded) after `held`, the start of a
    sequence held back from the last chunk: see the module docstring."""
    joined = held + text if held else text
    if any(char in joined for char in _CHARS) or _SEQUENCE.search(joined) is not None:
        return False
    return not clusters.may_join(data, text)
