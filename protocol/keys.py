"""Key names and the spellings people (and small models) use for them.

The one list of key names that the coordinator's `send_key` tool and `tiki terminal-key`
accept. What each name sends is `terminals.keys`' business; this module only names. To add
keys, add them to a group below (and their bytes in `terminals.keys`; a test checks that
every name has bytes).
"""

from __future__ import annotations

import string

# Groups, in the order they are listed to users and models.
EDITING: tuple[str, ...] = ("enter", "tab", "shift+tab", "esc", "backspace", "delete")
MOVEMENT: tuple[str, ...] = ("up", "down", "left", "right", "home", "end", "pageup", "pagedown", "space")
CTRL: tuple[str, ...] = tuple(f"ctrl+{c}" for c in string.ascii_lowercase)

KEY_NAMES: tuple[str, ...] = (*EDITING, *MOVEMENT, *CTRL)
_KNOWN = frozenset(KEY_NAMES)

# Spellings people (and small models) use for the same keys.
ALIASES: dict[str, str] = {
    "return": "enter", "ret": "enter", "cr": "enter",
    "escape": "esc",
    "bs": "backspace",
    "del": "delete",
    "pgup": "pageup", "page_up": "pageup", "page-up": "pageup", "prior": "pageup",
    "pgdn": "pagedown", "page_down": "pagedown", "page-down": "pagedown", "next": "pagedown",
    "backtab": "shift+tab", "s-tab": "shift+tab", "shift-tab": "shift+tab",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
}
# Ways to write a control chord: "ctrl-c", "control+c", "C-c", "^C".
_CTRL_PREFIXES = ("ctrl+", "ctrl-", "control+", "control-", "c-", "^")


def summary() -> str:
    """The names in one short line, for error messages."""
    return " ".join(EDITING + MOVEMENT) + " ctrl+a .. ctrl+z"


class UnknownKey(ValueError):
    """A key name we do not know; the message lists the valid names."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown key {name!r}; valid keys: {summary()}")


def canonical_key(name: str) -> str:
    """The KEY_NAMES spelling of `name` ("C-c", "Ctrl-C", "^C" -> "ctrl+c"); UnknownKey if none."""
    if not isinstance(name, str):
        raise UnknownKey(repr(name))
    key = name.strip().lower().replace(" ", "")
    key = ALIASES.get(key, key)
    for prefix in _CTRL_PREFIXES:
        if key.startswith(prefix) and len(key) == len(prefix) + 1:
            key = "ctrl+" + key[-1]
            break
    if key in _KNOWN:
        return key
    raise UnknownKey(name)
