"""What a tab answers to the questions its program asks the terminal (the device queries
`sequences.ModeScanner` finds): what xterm answers, or tmux where that differs for a reason
given below. DSR 6, the cursor's position, is the screen's own: it is taken where the query
stands in the output (`Screen.feed`)."""

from __future__ import annotations

from . import identity

DA1 = "\x1b[?62;22c"  # "VT220 with ANSI colour", what xterm-alikes answer
# DA2, "which terminal and version": a VT220, version 0. Emacs asks at start and waits for the
# answer (Emacs 28: 0.3 s without one; tmux answers its own, 84;0;0). The version stays 0
# because programs key features to xterm's patch level: above 242 Emacs asks for the
# background colour (OSC 11, unanswered until a UI's terminal told its colours) and waits
# again; from 95 vim takes us for an xterm.
DA2 = "\x1b[>1;0;0c"


def version() -> str:
    """XTVERSION's answer: DCS > | name version ST, as xterm, tmux and kitty give theirs."""
    return f"\x1bP>|{identity.NAME} {identity.version()}\x1b\\"


def answer(kind: str, rows: int, cols: int, colors: tuple[str | None, str | None]) -> str | None:
    """The answer to query `kind` ("" when there is none to give), or None for DSR 6."""
    if kind == "da1":
        return DA1
    if kind == "da2":
        return DA2
    if kind == "dsr5":  # "are you there": all is well
        return "\x1b[0n"
    if kind == "version":  # XTVERSION, how Claude Code and neovim tell terminals apart
        return version()
    if kind == "size":  # XTWINOPS 18: the text area, in cells (rows first; tmux 3.3a swaps them)
        return f"\x1b[8;{rows};{cols}t"
    if kind.startswith("color:"):  # OSC 10/11: those of the latest UI's terminal, if known
        _, number, end = kind.split(":", 2)
        color = colors[number == "11"]
        return f"\x1b]{number};{color}{end}" if color else ""
    if kind.startswith("rqm:"):  # DECRQM: "rqm:<mode>;<1 set|2 reset>"
        return f"\x1b[?{kind[4:]}$y"
    return None
