"""A seeded generator of random and adversarial VT byte streams, for tests/test_fuzz_vt.py.

Each piece is one kind of trouble a program (or a `cat` of the wrong file) can print: random
bytes, invalid UTF-8, CSI with truncated or huge parameters, REP with huge counts, OSC/DCS/APC
strings that are very long or never terminated, bursts of REP, mode toggles (alternate screen, DECCOLM,
origin, margins, bracketed paste), device queries, C1 controls encoded in UTF-8.
"""

from __future__ import annotations

import random

FINALS = "@ABCDEFGHIJKLMPSTXZ`abcdefghijklmnpqrstuvwxyz{|}~"
MODES = (1, 3, 5, 6, 7, 12, 25, 47, 69, 1000, 1002, 1004, 1006, 1047, 1048, 1049, 2004, 2026)


def _number(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.6:
        return str(rng.randint(0, 300))
    if roll < 0.85:
        return str(rng.choice((65535, 65536, 99999, 999999999, 2**31, 2**32 + 1, 2**64)))
    return "9" * rng.randint(10, 5000)  # more digits than int() parses by default


def _csi(rng: random.Random) -> bytes:
    params = ";".join(_number(rng) for _ in range(rng.randint(0, 12)))
    if rng.random() < 0.2:
        params = rng.choice("?<=>") + params
    inter = rng.choice(["", "", "", " ", "!", "$", "\"", "'"])
    final = "" if rng.random() < 0.1 else rng.choice(FINALS)  # sometimes truncated
    intro = "\x1b[" if rng.random() < 0.9 else "\u009b"  # 8-bit CSI, UTF-8 encoded
    return (intro + params + inter + final).encode()


def _string(rng: random.Random, long: bool) -> bytes:
    intro = rng.choice([b"\x1b]0;", b"\x1b]2;", b"\x1b]8;;", b"\x1b]52;c;", b"\x1b]133;A", b"\x1b]9;",
                        b"\x1bP", b"\x1bPq", b"\x1b_", b"\x1b^", b"\x1bX"])
    size = rng.randint(50_000, 300_000) if long else rng.randint(0, 2000)
    body = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789 #;") for _ in range(min(size, 4096)))
    body = (body * (size // max(1, len(body)) + 1))[:size]
    end = rng.choice([b"\x07", b"\x1b\\", b"\xc2\x9c", b""])
    return intro + body + end


def _piece(rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.15:
        return rng.randbytes(rng.randint(1, 2048))
    if kind < 0.30:
        return "".join(rng.choice("abc xyz 한글 \u00e9\u0301 \U0001F600\t\r\n") for _ in range(rng.randint(1, 400))).encode()
    if kind < 0.50:
        return _csi(rng)
    if kind < 0.57:
        count = rng.choice(("999999999", "65535", "9" * rng.randint(10, 3000), str(rng.randint(0, 9))))
        return rng.choice(("x", "\u5b57", "\U0001F600")).encode() + b"\x1b[" + count.encode() + b"b"
    if kind < 0.58:  # a burst of huge repeats in one write (the printf attack of issue 8)
        return b"x\x1b[999999999b" * rng.randint(50, 300)
    if kind < 0.66:
        return _string(rng, long=rng.random() < 0.15)
    if kind < 0.76:
        mode = rng.choice(MODES)
        return f"\x1b[?{mode}{rng.choice('hl')}".encode()
    if kind < 0.82:
        return rng.choice([b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff\xfe", b"\xe2\x82",
                           b"\xf0\x9f\x98", b"\x80\x80\x80", b"\xc2"]) * rng.randint(1, 50)
    if kind < 0.88:
        return bytes([0xC2, rng.randint(0x80, 0x9F)])  # C1 controls
    if kind < 0.93:
        return rng.choice([b"\x1b#8", b"\x1bc", b"\x1b7", b"\x1b8", b"\x1bD", b"\x1bM", b"\x1bE", b"\x1bH",
                           b"\x1b(0", b"\x1b(B", b"\x1b)0", b"\x0e", b"\x0f", b"\x1bN", b"\x1bO", b"\x1b"])
    if kind < 0.97:
        top, bottom = _number(rng)[:12], _number(rng)[:12]
        return rng.choice([f"\x1b[{top};{bottom}r", f"\x1b[{top};{bottom}s", f"\x1b[{top};{bottom}H",
                           f"\x1b[8;{top};{bottom}t"]).encode()
    return rng.choice([b"\x1b[6n", b"\x1b[c", b"\x1b[0c", b"\x1b[5n", b"\x1b[>c"])


def generate(seed: int, size: int) -> bytes:
    """About `size` bytes of adversarial output, the same for the same seed."""
    rng = random.Random(seed)
    pieces, total = [], 0
    while total < size:
        piece = _piece(rng)
        pieces.append(piece)
        total += len(piece)
    return b"".join(pieces)
