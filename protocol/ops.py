"""Every IPC op, once: its name, its arguments, its reply, whether it streams, and who calls it.

The command line builds its requests from these (`Op.args(...)` is a plain dict), the host
checks every request's arguments against them (`protocol.schema.check`) before a handler
runs, and `actors.host` wires exactly one handler to each. Adding an op is one entry here
plus one handler; a misspelt op name in a handler table or a command is an AttributeError at
import. TypedDicts cost the command line nothing (it already imports `typing`).

Replies are documented the same way; the suite checks real replies against them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from .limits import MAX_CHAT_MESSAGE
from .ops_agent import AgentRow, AgentState, Explained, Queued  # noqa: F401 - shapes of the tab ops below
from .schema import Length, Range
from .ui import UiAttach, UiDetached, UiInfo  # noqa: F401 - the shapes of ui.attach and of the sessions host.info lists

Name = Annotated[str, Length(min=1, max=200)]  # a tab name as the user typed it (checked by the workspace)
Lines = Annotated[int, Range(1, 10_000)]
Millis = Annotated[int, Range(1, 24 * 3_600_000)]


class Op:
    """One op. `long` ops (waits, streams) may hold their connection for minutes, so the
    server keeps them from taking every slot; only `streaming` ops may send events."""

    __slots__ = ("name", "args", "reply", "streaming", "long", "summary", "callers")

    def __init__(self, name: str, args: type, reply: type, summary: str, *, callers: str,
                 streaming: bool = False, long: bool = False) -> None:
        self.name, self.args, self.reply, self.summary = name, args, reply, summary
        self.streaming, self.long = streaming, long or streaming
        self.callers = callers  # the command (or client) that sends it: see test_ops

    def __repr__(self) -> str:
        return f"Op({self.name!r})"


class NoArgs(TypedDict):
    pass


# -- tabs ----------------------------------------------------------------------------------

class TabRow(TypedDict):
    id: int
    name: str
    command: list[str]
    cwd: str
    role: Literal["peer", "shell"]
    running: bool
    exit_code: int | None
    activity: Literal["idle", "busy"]
    active: bool
    failed: str | None
    watched: bool  # a UI shows the tab (its screen frames are built)
    unseen: Literal["done", "bell"] | None  # its agent finished, or it rang, while no UI showed it; until one does
    agent: AgentRow


class TabList(TypedDict):
    terminals: list[TabRow]


class _TabNew(TypedDict):
    name: Name


class TabNew(_TabNew, total=False):
    command: list[str] | None  # argv; default the user's shell
    cwd: str | None
    role: Literal["peer", "shell"]


class TabName(TypedDict):
    name: Name


class TabRename(TypedDict):
    name: Name
    new_name: Name


class Closed(TypedDict):
    closed: str


class _TabRead(TypedDict):
    name: Name


class TabRead(_TabRead, total=False):
    lines: Lines


class TabText(TypedDict):
    name: str
    lines: int
    text: str
    cursor: dict[str, int]
    title: str
    alt_screen: bool


class TabCells(TypedDict):
    """The visible screen cell by cell (`terminals.grid`): `cells[row][col]` is
    `[characters, style index]`, "" for the right half of a wide character."""

    name: str
    cols: int
    rows: int
    cursor: dict[str, Any]
    title: str
    modes: dict[str, Any]
    styles: list[dict[str, Any]]
    cells: list[list[list[Any]]]


class _TabSend(TypedDict):
    name: Name
    text: str


class TabSend(_TabSend, total=False):
    enter: bool
    literal: bool  # typed key by key, never as a bracketed paste (tmux send-keys -l)
    timeout_ms: Annotated[int, Range(1, 600_000)]
    now: bool  # type at once, even into an agent that is working or waiting
    wait: bool  # false: answer once the text is queued, not when it is typed (default: true outside tabs)


class _Sent(TypedDict):
    name: str
    ok: bool
    delivery: Literal["delivered", "queued"]  # queued: answered before it was typed (wait=false)
    queued_ms: int  # how long it waited for the agent to be idle (0: typed at once)


class Sent(_Sent, total=False):
    changed: bool
    written: int
    submitted: bool  # into an agent: Enter was seen to be taken
    enter_retries: int  # into an agent: 1 when a second Enter was needed


class TabKeys(TypedDict):
    name: Name
    keys: Annotated[list[str], Length(min=1, max=100)]


class KeysSent(TypedDict):
    name: str
    sent: list[str]


class _TabWait(TypedDict):
    name: Name


class TabWait(_TabWait, total=False):
    idle_ms: Annotated[int, Range(1, 3_600_000)]
    timeout_ms: Millis
    until: Literal["waiting", "idle", "exited", "working"]  # an agent state instead of quiet output


class _Waited(TypedDict):
    name: str
    idle: bool
    waited_ms: int


class Waited(_Waited, total=False):
    state: AgentState  # with `until`: the state reached, and why
    reason: str


# -- the host --------------------------------------------------------------------------------

class Pong(TypedDict):
    pong: bool
    pid: int


class HostInfo(TypedDict):
    pid: int
    socket: str
    workspace: str | None
    workspace_note: str | None  # how the workspace was chosen, when worth saying (a restore after a crash)
    tabs: int
    connections: dict[str, int] | None
    uis: list[UiInfo]  # the attached UIs, oldest first
    health: dict[str, dict[str, Any]]


class Stopping(TypedDict):
    stopping: bool


class LogTail(TypedDict, total=False):
    last: Annotated[int, Range(1)]


class Events(TypedDict):
    events: list[dict[str, Any]]


class _Chat(TypedDict):
    message: Annotated[str, Length(max=MAX_CHAT_MESSAGE)]


# `from` is a Python keyword: the optional part is spelt the functional way.
_ChatFrom = TypedDict("_ChatFrom", {"from": Annotated[str, Length(min=1, max=200)]}, total=False)


class Chat(_Chat, _ChatFrom):
    """A message, and the tab it claims to come from (required outside any tab)."""


class Chatted(TypedDict("_ChattedFrom", {"from": str})):  # the sender as the host verified it
    accepted: bool
    verified: bool
    verified_by: Literal["pty", "token"] | None
    text: str
    note: str | None  # for an unverified one: the tab token ignored, a sender that is no tab


# -- the coordinator -----------------------------------------------------------------------

class _Ask(TypedDict):
    prompt: Annotated[str, Length(min=1)]


class Ask(_Ask, total=False):
    allow_shell: bool
    new: bool  # start a new coordinator session first


class RunCancel(TypedDict, total=False):
    run_id: str | None


class Cancelled(TypedDict):
    cancelled: bool


class ResetDone(TypedDict):
    reset: bool


ANY = dict  # replies whose shape lives with their producer (run events, status)

TERMINAL_LIST = Op("terminal.list", NoArgs, TabList, "every tab", callers="tiki terminal-list")
TERMINAL_NEW = Op("terminal.new", TabNew, TabRow, "open a tab", callers="tiki terminal-new")
TERMINAL_CLOSE = Op("terminal.close", TabName, Closed, "close a tab, ending its processes",
                    callers="tiki terminal-close")
TERMINAL_RENAME = Op("terminal.rename", TabRename, TabRow, "rename a tab", callers="tiki terminal-rename")
TERMINAL_RESTART = Op("terminal.restart", TabName, TabRow, "run a tab's command again",
                      callers="tiki terminal-restart")
TERMINAL_READ = Op("terminal.read", TabRead, TabText, "a tab's last lines as plain text",
                   callers="tiki terminal-read")
TERMINAL_CELLS = Op("terminal.cells", TabName, TabCells, "a tab's visible screen cell by cell, with styles and modes",
                    callers="tiki terminal-read")
TERMINAL_SEND = Op("terminal.send", TabSend, Sent, "type text into a tab, then Enter; into a working agent "
                   "once it is idle (streams a `queued` event first)", callers="tiki terminal-send", streaming=True)
TERMINAL_KEY = Op("terminal.key", TabKeys, KeysSent, "press named keys in a tab", callers="tiki terminal-key")
TERMINAL_WAIT = Op("terminal.wait", TabWait, Waited, "wait until a tab is quiet, or in an agent state",
                   callers="tiki terminal-wait", long=True)
TERMINAL_EXPLAIN = Op("terminal.explain", TabName, Explained, "a tab's agent state and the rule that matched",
                      callers="tiki explain")
HOST_PING = Op("host.ping", NoArgs, Pong, "is a host there", callers="tiki doctor")
HOST_INFO = Op("host.info", NoArgs, HostInfo, "the host's pid, socket, workspace, connections, attached UIs and health",
               callers="tiki status")
HOST_SHUTDOWN = Op("host.shutdown", NoArgs, Stopping, "stop the host and every tab", callers="tiki shutdown")
LOG_TAIL = Op("log.tail", LogTail, Events, "the event log, oldest first", callers="tiki log")
BOT_CHAT = Op("bot.chat", Chat, Chatted, "a message for the coordinator, from a peer or a person",
              callers="tiki bot-chat")
AGENT_ASK = Op("agent.ask", Ask, ANY, "run the coordinator; progress events, then the final one",
               callers="tiki ask", streaming=True)
AGENT_STATUS = Op("agent.status", NoArgs, ANY, "backend, model, coordinator state, peers, health",
                  callers="tiki status")
AGENT_CANCEL = Op("agent.cancel", RunCancel, Cancelled, "cancel the current (or a given) run",
                  callers="tiki cancel")
AGENT_RESET = Op("agent.reset", NoArgs, ResetDone, "a new coordinator session", callers="tiki reset")
UI_ATTACH = Op("ui.attach", UiAttach, UiDetached, "attach a UI: one long-lived session of screen frames and "
               "events down, input up (protocol/README.md)", callers="tiki attach", streaming=True)

OPS: dict[str, Op] = {op.name: op for op in (
    TERMINAL_LIST, TERMINAL_NEW, TERMINAL_CLOSE, TERMINAL_RENAME, TERMINAL_RESTART, TERMINAL_READ,
    TERMINAL_CELLS, TERMINAL_SEND, TERMINAL_KEY, TERMINAL_WAIT, TERMINAL_EXPLAIN, HOST_PING, HOST_INFO, HOST_SHUTDOWN,
    LOG_TAIL, BOT_CHAT, AGENT_ASK, AGENT_STATUS, AGENT_CANCEL, AGENT_RESET, UI_ATTACH,
)}
