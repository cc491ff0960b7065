"""`DONE(...)` unwrapping for bot-chat messages.

Peers answer with `tiki bot-chat "DONE(your reply)"`. Everything between the first `DONE(`
and its matching last `)` is the message: commas and parentheses inside are message text
(the reference product splits on the comma and takes the first part as a sender; we don't).
"""

from __future__ import annotations

import re

_DONE = re.compile(r"^\s*done\s*\((?P<body>.*)\)\s*$", re.IGNORECASE | re.DOTALL)


def unwrap_done(message: str) -> str:
    """`DONE(42, obviously)` -> `42, obviously`; text without the wrapper comes back stripped."""
    match = _DONE.match(message)
    if match is None:
        return message.strip()
    return match.group("body").strip()
