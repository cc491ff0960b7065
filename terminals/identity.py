"""Which terminal a tab's programs talk to: tikitaka, at the installed version. Told them in
their environment (TERM_PROGRAM, TERM_PROGRAM_VERSION, as tmux does) and to XTVERSION."""

from __future__ import annotations

import functools

NAME = "tikitaka"


@functools.lru_cache(maxsize=1)
def version() -> str:
    import importlib.metadata  # (here: ~20 ms that every `tiki` command paid at import)

    try:
        return importlib.metadata.version(NAME)
    except importlib.metadata.PackageNotFoundError:  # (run from a source tree not installed)
        return "0"
