"""Regenerates terminals/zero_width.py from the running Python's unicodedata (run from the repository root)."""

import unicodedata

PCM = {0x600,0x601,0x602,0x603,0x604,0x605,0x6DD,0x70F,0x890,0x891,0x8E2,0x110BD,0x110CD}
def zero(cp):
    c = unicodedata.category(chr(cp))
    return ((c in ("Mn","Me","Cf") and cp != 0xAD and cp not in PCM)
            or 0x1160 <= cp <= 0x11FF or 0xD7B0 <= cp <= 0xD7C6 or 0xD7CB <= cp <= 0xD7FB)
def ranges():
    out=[]; start=None; prev=None
    for cp in range(0x300, 0x110000):
        if 0xD800 <= cp < 0xE000: continue
        if zero(cp):
            if start is None: start = cp
            prev = cp
        elif start is not None:
            out.append((start, prev)); start = None
    if start is not None: out.append((start, prev))
    return out
if __name__ == "__main__":
    r = ranges()
    items = [f"0x{a:X}, 0x{b:X}," for a, b in r]
    lines=[]; cur="    "
    for it in items:
        if len(cur) + len(it) + 1 > 104:
            lines.append(cur.rstrip()); cur = "    "
        cur += it + " "
    lines.append(cur.rstrip())
    print(unicodedata.unidata_version, len(r), len(lines))
    body = "\n".join(lines)
    src = f'''"""The code points a terminal draws with no width of their own (they join the character before
them): combining marks (Mn, Me), format characters (Cf: zero-width joiner and space, the
variation selectors, ...) and the medial and final Hangul jamo -- what glibc's `wcwidth` (and so
tmux, and the programs in a tab) measure as 0, except the soft hyphen and the prepended
concatenation marks. pyavt gives each of them a cell; `clusters` joins them to their base.

Generated from Unicode {unicodedata.unidata_version} (`python tests/gen_zero_width.py`); `test_clusters` checks
it against the running Python's `unicodedata` when the versions match.
"""

UNICODE_VERSION = "{unicodedata.unidata_version}"

# Inclusive (first, last) pairs, flattened.
RANGES: tuple[int, ...] = (
{body}
)
'''
    open("terminals/zero_width.py", "w").write(src)
