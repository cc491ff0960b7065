"""tikitaka's own keys: the prefix, then one key. The ONE table of prefix commands: the
dispatcher (`command_for`), the command palette and the help screen are all built from it.

To add a command, add a `PrefixCommand` to `COMMANDS` and an `action_<name>` method to the
app (`TikiApp`, see commands.py); the palette and help pick it up. Every key not in the table
goes to the program in the tab; after the prefix, a key not in the table is dropped (as in
tmux), and the prefix itself sends the prefix to the program.

The prefix is `[keys] prefix` in config.toml, spelled as `tiki terminal-key` spells keys.
The default, ctrl+\\, is a key that shells' line editing (readline, zle), vim, less, the AI
CLIs (Claude Code, Codex, Gemini) and tmux (whose prefix is ctrl+b) leave alone; a terminal
sends it as one byte, 0x1c (in a shell's raw mode it would otherwise be SIGQUIT, which the
prefix twice still sends). A prefix that is how the terminal starts its escape sequences (esc,
ctrl+[, alt+[, alt+O) is refused: the arrows, F-keys and the mouse would all begin with it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PrefixCommand:
    keys: str  # the key(s) after the prefix: each character is one binding
    action: str  # `TikiApp.action_<action>`; digits pass themselves as the argument
    title: str  # for the palette and the help
    help: str


COMMANDS: tuple[PrefixCommand, ...] = (
    PrefixCommand("123456789", "goto_tab", "Go to tab 1-9", "show the tab with that number"),
    PrefixCommand("n", "next_tab", "Next tab", "show the next tab"),
    PrefixCommand("p", "prev_tab", "Previous tab", "show the previous tab"),
    PrefixCommand("l", "last_tab", "Last tab", "show the tab shown before this one; again to come back"),
    PrefixCommand("c", "new_tab", "New tab", "open a tab: name, command, directory"),
    PrefixCommand(",", "rename_tab", "Rename tab", "rename the tab shown"),
    PrefixCommand("x", "close_tab", "Close tab", "close the tab shown, ending its program (asks)"),
    PrefixCommand("r", "restart_tab", "Restart tab", "run the tab's command again"),
    PrefixCommand("a", "toggle_focus", "Agent panel", "move the keyboard to the agent panel and back"),
    PrefixCommand("z", "cycle_panel", "Panel position", "dock the agent panel right, bottom, or hide it"),
    PrefixCommand("f", "zoom", "Zoom tab", "the tab shown fills the window (no tab bar, no panel); again to go back"),
    PrefixCommand("[", "scrollback_mode", "Scrollback mode", "move through history with keys; / ? search, n N "
                  "again, v select, y or Enter copy; q or Escape back to the live screen"),
    PrefixCommand("]", "paste_buffer", "Paste", "paste the text copied last (a drag, or scrollback mode)"),
    PrefixCommand("R", "redraw", "Redraw screen", "draw every cell of the screen again (something else wrote over it)"),
    PrefixCommand("?", "help", "Help", "this help"),
    PrefixCommand(":", "command_palette", "Command palette", "every command, searchable"),
    PrefixCommand("d", "detach", "Detach", "leave the UI; the tabs keep running (`tiki` attaches again)"),
    PrefixCommand("q", "stop_host", "Stop the host and all its tabs", "end every tab's program and the host "
                  "(asks; the default answer is Cancel)"),
)


def command_for(key: str) -> tuple[str, tuple[int, ...]] | None:
    """(action, arguments) bound to `key` after the prefix, or None."""
    for command in COMMANDS:
        if key and key in command.keys:
            return command.action, ((int(key),) if key.isdigit() else ())
    return None


def key_label(keys: str) -> str:
    return f"{keys[0]}..{keys[-1]}" if len(keys) > 1 else keys


# -- the prefix key ----------------------------------------------------------------------------

class PrefixError(ValueError):
    """`[keys] prefix` names no key; the message says what to write."""


def prefix_bytes(name: str) -> bytes:
    """What the outer terminal sends for the prefix key `name` (terminal-key spelling). The
    host checked it with the rest of config.toml (`protocol.settings.KeySettings`) before it
    told the UI; PrefixError is for a host that did not."""
    from ...terminals.keys import UnknownKey, key_bytes

    try:
        data = key_bytes(name.strip())
    except UnknownKey as exc:
        raise PrefixError(f"config.toml: [keys] prefix = {name!r} is not a key ({exc})") from None
    if data in SEQUENCE_STARTS:
        # Every escape sequence the terminal sends would begin with the prefix: the arrows,
        # the F-keys and the mouse would become prefix commands, and the program would get
        # their tails ("5~" for F5).
        raise PrefixError(f"config.toml: [keys] prefix = {name!r} is how the terminal starts an escape sequence "
                          '(the arrow keys, F-keys, the mouse): use a control key such as "ctrl+t"')
    return data


# ESC, CSI (ESC [) and SS3 (ESC O): what a terminal's keys and reports begin with.
SEQUENCE_STARTS = (b"\x1b", b"\x1b[", b"\x1bO")


def prefix_label(name: str) -> str:
    """The prefix as the help and the tab bar show it: "Ctrl+\\"."""
    return "+".join(part.capitalize() if len(part) > 1 else part for part in name.strip().split("+"))
