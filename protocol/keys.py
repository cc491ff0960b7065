"""Key names and the spellings people (and small models) use for them.

The one table of key names that `tiki terminal-key` and the coordinator's `send_key` tool
accept; what each sends is `terminals.keys`' business, this module only names and checks. A key
is a base key with optional modifiers:

- named keys: enter tab esc backspace delete insert, the cursor keys, home end pageup
  pagedown, space, f1..f12;
- any single printable character, case kept (`A` is a capital A, `:` a colon);
- `ctrl+` a letter or the punctuation that has a control code (`ctrl+[` `ctrl+\\` `ctrl+]`
  `ctrl+^` `ctrl+_` `ctrl+/` `ctrl+@` `ctrl+space`);
- `ctrl+`, `alt+`, `shift+` and their combinations on the keys xterm modifies (cursor keys,
  home end pageup pagedown insert delete, f1..f12): `ctrl+left`, `shift+up`, `ctrl+shift+f5`;
- `alt+` on anything else (the terminal sends ESC first): `alt+x`, `alt+.`, `alt+enter`;
- `shift+tab`, and `shift+` a letter (the capital).

The canonical spelling puts modifiers in the order ctrl, alt, shift, all lower case, and the
base key lower case unless it is a single character.
"""

from __future__ import annotations

import string

# Groups, in the order they are listed to users and models.
EDITING: tuple[str, ...] = ("enter", "tab", "shift+tab", "esc", "backspace", "delete", "insert")
MOVEMENT: tuple[str, ...] = ("up", "down", "left", "right", "home", "end", "pageup", "pagedown", "space")
FUNCTION: tuple[str, ...] = tuple(f"f{n}" for n in range(1, 13))
CTRL: tuple[str, ...] = tuple(f"ctrl+{c}" for c in string.ascii_lowercase)
# Punctuation with a control code of its own (what xterm sends for them with ctrl).
CTRL_PUNCT: tuple[str, ...] = tuple(f"ctrl+{c}" for c in ("space", "@", "[", "\\", "]", "^", "_", "/"))

KEY_NAMES: tuple[str, ...] = (*EDITING, *MOVEMENT, *FUNCTION, *CTRL, *CTRL_PUNCT)

# Keys xterm encodes with a modifier parameter (CSI 1;m X or CSI n;m ~).
MODIFIABLE: frozenset[str] = frozenset(
    ("up", "down", "left", "right", "home", "end", "pageup", "pagedown", "insert", "delete", *FUNCTION))
_NAMED = frozenset(("enter", "tab", "esc", "backspace", "space")) | MODIFIABLE
_CTRL_BASES = frozenset(string.ascii_lowercase) | frozenset(("space", "@", "[", "\\", "]", "^", "_", "/"))
MODIFIERS = ("ctrl", "alt", "shift")

# Modified keys and alt chords offered to the coordinator's model as an enum (besides the
# names and the printable characters): the common ones, not every combination.
_ARROWS = ("up", "down", "left", "right", "home", "end")
TOOL_EXTRA: tuple[str, ...] = (
    *(f"{mod}+{key}" for mod in ("ctrl", "alt", "shift") for key in _ARROWS),
    *(f"ctrl+shift+{key}" for key in _ARROWS),
    *(f"alt+{c}" for c in string.ascii_lowercase + string.digits + ".-"), "alt+enter", "alt+backspace",
)
# Printable ASCII as single characters (a space is the key "space").
PRINTABLE: tuple[str, ...] = tuple(c for c in string.printable if c.isprintable() and c != " ")
TOOL_KEYS: tuple[str, ...] = (*KEY_NAMES, *TOOL_EXTRA, *PRINTABLE)

# Spellings people (and small models) use for the same base keys.
ALIASES: dict[str, str] = {
    "return": "enter", "ret": "enter", "cr": "enter",
    "escape": "esc",
    "bs": "backspace",
    "del": "delete",
    "ins": "insert",
    "pgup": "pageup", "page_up": "pageup", "page-up": "pageup", "prior": "pageup",
    "pgdn": "pagedown", "page_down": "pagedown", "page-down": "pagedown", "next": "pagedown",
    "backtab": "shift+tab",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    "spc": "space",
}
# Ways to write each modifier: "ctrl-c", "control+c", "C-c", "^C", "M-x", "meta+x", "S-tab".
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("control+", "ctrl"), ("control-", "ctrl"), ("ctrl+", "ctrl"), ("ctrl-", "ctrl"), ("c-", "ctrl"), ("^", "ctrl"),
    ("alt+", "alt"), ("alt-", "alt"), ("meta+", "alt"), ("meta-", "alt"), ("option+", "alt"), ("opt+", "alt"),
    ("m-", "alt"), ("a-", "alt"),
    ("shift+", "shift"), ("shift-", "shift"), ("s-", "shift"),
)


def summary() -> str:
    """The names in one short line, for error messages."""
    return (" ".join(EDITING + MOVEMENT) + " f1..f12 ctrl+a .. ctrl+z " + " ".join(CTRL_PUNCT)
            + "; ctrl+/alt+/shift+ on the cursor keys, home end pageup pagedown insert delete f1..f12"
            " (ctrl+left, shift+up); alt+ANY (alt+x, alt+.); any single character")


def brief() -> str:
    """The keys in a few words, for the coordinator's tool description."""
    return (" ".join(EDITING + MOVEMENT) + " f1..f12 ctrl+a..ctrl+z, ctrl+/alt+/shift+ with the arrows"
            " (ctrl+left), alt+X, or one character")


class UnknownKey(ValueError):
    """A key name we do not know; the message lists the valid names."""

    def __init__(self, name: str, why: str = "") -> None:
        self.name = name
        super().__init__(f"unknown key {name!r}{'; ' + why if why else ''}; valid keys: {summary()}")


def split_key(name: str) -> tuple[frozenset[str], str]:
    """(modifiers, base) of a key as written; the base is lower-cased unless it is one character.
    Raises UnknownKey for a name that is not a key at all."""
    if not isinstance(name, str) or not name:
        raise UnknownKey(repr(name))
    if len(name) == 1:
        return frozenset(), name
    rest = name.strip()
    mods: set[str] = set()
    while len(rest) > 1:
        lowered = rest.lower()
        found = next(((p, m) for p, m in _PREFIXES if lowered.startswith(p) and len(rest) > len(p)), None)
        if found is None:
            break
        mods.add(found[1])
        rest = rest[len(found[0]):]
    if len(rest) != 1:
        rest = rest.lower().replace(" ", "")
        rest = ALIASES.get(rest, rest)
        if rest == "shift+tab":
            mods.add("shift")
            rest = "tab"
    return frozenset(mods), rest


def canonical_key(name: str) -> str:
    """The canonical spelling of key `name` ("C-c", "Ctrl-C", "^C" -> "ctrl+c"; "S-Left" ->
    "shift+left"); UnknownKey when it is not a key or not a meaningful combination."""
    mods, base = split_key(name)
    if len(base) == 1:
        if not base.isprintable():
            raise UnknownKey(name, "control characters are spelt ctrl+X, enter, tab, esc or backspace")
        if base == " ":
            base = "space"
        elif "ctrl" in mods and base.isalpha():
            base = base.lower()  # ctrl+C is ctrl+c: a terminal sends the same byte
    elif base not in _NAMED:
        raise UnknownKey(name)
    if "shift" in mods and base not in MODIFIABLE:
        if base == "tab" and "ctrl" not in mods:
            pass  # shift+tab (and alt+shift+tab): CSI Z
        elif len(base) == 1 and base.isalpha() and "ctrl" not in mods:
            mods, base = mods - {"shift"}, base.upper()
        else:
            raise UnknownKey(name, "shift+ only goes with tab, letters and the keys xterm modifies")
    if "ctrl" in mods and base not in MODIFIABLE and base not in _CTRL_BASES:
        raise UnknownKey(name, "ctrl+ goes with letters, space, @ [ \\ ] ^ _ / and the keys xterm modifies")
    return "+".join([m for m in MODIFIERS if m in mods] + [base])


def key_parts(name: str) -> tuple[tuple[str, ...], str]:
    """(modifiers in canonical order, base key) of `name`, checked as `canonical_key` does."""
    key = canonical_key(name)
    mods = []
    for mod in MODIFIERS:
        if key.startswith(mod + "+") and len(key) > len(mod) + 1:
            mods.append(mod)
            key = key[len(mod) + 1:]
    return tuple(mods), key
