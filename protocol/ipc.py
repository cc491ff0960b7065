"""The wire between the `tiki` command line (or a peer AI) and a running host.

One request per connection: the client writes one JSON object on one line, the host answers
with zero or more `event` frames (for streaming requests such as `ask`) and then exactly one
final frame that carries `ok`. Every frame is one line of JSON.

    request:  {"id": "3f2a", "op": "terminal.read", "args": {"name": "sh"}, "token": "..."}
    event:    {"id": "3f2a", "event": {...}}
    final:    {"id": "3f2a", "ok": true, "result": {...}}
              {"id": "3f2a", "ok": false, "error": {"code": "unknown_tab", "message": "..."}}

Limits: a request is at most `MAX_REQUEST` bytes and must arrive whole within the host's
request deadline (a few seconds); a reply frame may be up to `MAX_REPLY` bytes (a full
scrollback, a long answer). Strings must be valid Unicode (no lone surrogates) and nesting is
at most `MAX_DEPTH` deep. Anything else gets a `bad_request` error reply, never silence.

Loopback TCP endpoints (Windows, TIKI_IPC=tcp): before its request the client sends one short
line `AUTH <secret>` (the secret from the endpoint file, see actors/endpoint.py). The host
checks it before reading anything else, so a client without the secret costs it one short line.

A host that has no room for a request answers `busy`; clients retry that for a bounded time.
"""

from __future__ import annotations

import hmac
import json
import re
from typing import Any

MAX_REQUEST = 1024 * 1024  # 1 MiB per request line
MAX_FRAME = MAX_REQUEST  # (the old name; requests keep it)
MAX_REPLY = 64 * 1024 * 1024  # a reply frame: 10,000 scrollback lines of 1,000 wide characters fit
MAX_DEPTH = 64  # arrays/objects nested deeper than this are refused
MAX_ID = 128  # characters of a request id
MAX_MESSAGE = 2000  # characters of an error message (longer ones are cut, saying so)
AUTH_PREFIX = b"AUTH "
MAX_AUTH_LINE = 256

# Error codes a host may answer with. The CLI maps them to exit codes (see `exit_code_for`).
BAD_REQUEST = "bad_request"  # malformed JSON, missing fields, wrong types, oversized frame
UNKNOWN_OP = "unknown_op"
UNKNOWN_TAB = "unknown_tab"
REFUSED = "refused"  # the request was understood but the host will not do it
BUSY = "busy"  # no room for the request right now; try again shortly
TIMEOUT = "timeout"
INTERNAL = "internal"


class FrameError(ValueError):
    """A frame that cannot be decoded; `code` says which error to answer with."""

    def __init__(self, message: str, code: str = BAD_REQUEST) -> None:
        super().__init__(message)
        self.code = code


class Request:
    """One request. (A plain class: `dataclasses` costs the CLI ~15 ms of start-up.)"""

    __slots__ = ("op", "args", "id", "token")

    def __init__(self, op: str, args: dict[str, Any] | None = None, id: str = "", token: str | None = None) -> None:
        self.op = op
        self.args = args if args is not None else {}
        self.id = id
        self.token = token  # the caller's TIKI_TAB_TOKEN when called from inside a tab

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Request) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return f"Request(op={self.op!r}, args={self.args!r}, id={self.id!r})"

    def to_frame(self) -> bytes:
        body: dict[str, Any] = {"id": self.id, "op": self.op, "args": self.args}
        if self.token:
            body["token"] = self.token
        return encode_frame(body, MAX_REQUEST)


def auth_line(secret: str) -> bytes:
    return AUTH_PREFIX + secret.encode("ascii") + b"\n"


AUTH_REFUSAL = ("refused: the request lacks this host's secret; send the line `AUTH <secret>` (from the endpoint "
                "file) first, as the tiki CLI does")


def read_auth(received: bytes, secret: bytes) -> tuple[bool | None, int]:
    """The `auth_line` at the start of what a client sent: (True, its length) when it carries
    `secret`; (False, 0) when it does not, or cannot (another start, too long); (None, 0) while
    it has not come whole. Compared in constant time."""
    if not AUTH_PREFIX.startswith(received[:len(AUTH_PREFIX)]):
        return False, 0
    newline = received.find(b"\n")
    if newline < 0:
        return (False if len(received) > MAX_AUTH_LINE else None), 0
    return hmac.compare_digest(received[len(AUTH_PREFIX):newline].strip(), secret), newline + 1


def encode_frame(obj: dict[str, Any], limit: int = MAX_REPLY) -> bytes:
    """One JSON object as one line; raises FrameError when it would exceed `limit`.
    Lone surrogates (which UTF-8 cannot carry) are written as visible `\\udXXX` text."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    try:
        data = text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        data = json.dumps(_visible(obj), ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    if len(data) > limit:
        raise FrameError(f"frame of {len(data)} bytes exceeds the {limit}-byte limit")
    return data


def _visible(value: Any) -> Any:
    """`value` with every lone surrogate replaced by its `\\udXXX` spelling."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_visible(k): _visible(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_visible(v) for v in value]
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def decode_object(line: bytes, limit: int = MAX_REQUEST, check: bool = True) -> dict[str, Any]:
    """Decode one frame into a JSON object, with an error that names what is wrong. `check`
    enforces MAX_DEPTH and valid Unicode (the host does; a client reading replies need not)."""
    if len(line) > limit:
        raise FrameError(f"frame exceeds the {limit}-byte limit")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameError(f"frame is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FrameError(f"frame is not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise FrameError(f"frame nests arrays/objects too deeply (the limit is {MAX_DEPTH})") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise FrameError(f"frame has a value JSON cannot take here: {clip(str(exc), 200)}") from None
    if not isinstance(obj, dict):
        raise FrameError(f"frame must be a JSON object, got {type(obj).__name__}")
    # Walk the object only when it could break a rule: both checks below are C-speed scans.
    if check and (text.count("[") + text.count("{") > MAX_DEPTH or _SURROGATE_ESCAPE.search(text)):
        _check_tree(obj)
    return obj


def _check_tree(obj: Any) -> None:
    """Depth and valid Unicode, iteratively (a recursive walk could itself overflow)."""
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
        elif isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise FrameError(f"frame nests arrays/objects more than {MAX_DEPTH} deep")
            if isinstance(value, dict):
                for key, item in value.items():
                    _check_text(key)
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FrameError(f"frame holds a lone surrogate (\\u{ord(text[exc.start]):04x}), which is not "
                             "valid Unicode; send UTF-8 text") from None


def decode_request(line: bytes) -> Request:
    """Parse a request frame; raises FrameError with a message a user can act on."""
    obj = decode_object(line)
    op = obj.get("op")
    if not isinstance(op, str) or not op:
        raise FrameError("request needs a string field 'op'")
    args = obj.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise FrameError("request field 'args' must be an object")
    req_id = obj.get("id", "")
    if isinstance(req_id, bool) or not isinstance(req_id, (str, int)):
        raise FrameError("request field 'id' must be a string")
    if isinstance(req_id, int):
        req_id = str(req_id) if abs(req_id) < 10**MAX_ID else "-" * (MAX_ID + 1)
    if len(req_id) > MAX_ID:
        raise FrameError(f"request field 'id' is longer than {MAX_ID} characters")
    token = obj.get("token")
    if token is not None and not isinstance(token, str):
        raise FrameError("request field 'token' must be a string")
    return Request(op=op, args=args, id=req_id, token=token)


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters cut)"


def ok_frame(req_id: str, result: Any) -> bytes:
    return encode_frame({"id": req_id, "ok": True, "result": result})


def error_frame(req_id: str, code: str, message: str, **extra: Any) -> bytes:
    """An error reply that always encodes: the message is cut to MAX_MESSAGE characters and
    details that would make the frame large are dropped."""
    error = {"code": code, "message": clip(message), **extra}
    try:
        return encode_frame({"id": req_id, "ok": False, "error": error}, MAX_REQUEST // 16)
    except (FrameError, TypeError, ValueError):
        return encode_frame({"id": clip(req_id, MAX_ID), "ok": False,
                             "error": {"code": code, "message": clip(message)}})


def event_frame(req_id: str, event: dict[str, Any]) -> bytes:
    return encode_frame({"id": req_id, "event": event})


# CLI exit codes (DESIGN.md, "The command line").
EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_NO_HOST = 3
EXIT_TIMEOUT = 4


def exit_code_for(error_code: str) -> int:
    return EXIT_TIMEOUT if error_code in (TIMEOUT, BUSY) else EXIT_REFUSED
