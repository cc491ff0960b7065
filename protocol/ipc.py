"""The wire between the `tiki` command line (or a peer AI) and a running host.

One request per connection: the client writes one JSON object on one line, the host answers
with zero or more `event` frames (for streaming requests such as `ask`) and then exactly one
final frame that carries `ok`. Every frame is one line of JSON, at most `MAX_FRAME` bytes.

    request:  {"id": "3f2a", "op": "terminal.read", "args": {"name": "sh"}, "token": "..."}
    event:    {"id": "3f2a", "event": {...}}
    final:    {"id": "3f2a", "ok": true, "result": {...}}
              {"id": "3f2a", "ok": false, "error": {"code": "unknown_tab", "message": "..."}}
"""

from __future__ import annotations

import json
from typing import Any

MAX_FRAME = 1024 * 1024  # 1 MiB per line, requests and replies alike

# Error codes a host may answer with. The CLI maps them to exit codes (see `exit_code_for`).
BAD_REQUEST = "bad_request"  # malformed JSON, missing fields, wrong types, oversized frame
UNKNOWN_OP = "unknown_op"
UNKNOWN_TAB = "unknown_tab"
REFUSED = "refused"  # the request was understood but the host will not do it
TIMEOUT = "timeout"
INTERNAL = "internal"


class FrameError(ValueError):
    """A frame that cannot be decoded; `code` says which error to answer with."""

    def __init__(self, message: str, code: str = BAD_REQUEST) -> None:
        super().__init__(message)
        self.code = code


class Request:
    """One request. (A plain class: `dataclasses` costs the CLI ~15 ms of start-up.)"""

    __slots__ = ("op", "args", "id", "token", "auth")

    def __init__(self, op: str, args: dict[str, Any] | None = None, id: str = "", token: str | None = None,
                 auth: str | None = None) -> None:
        self.op = op
        self.args = args if args is not None else {}
        self.id = id
        self.token = token  # the caller's TIKI_TAB_TOKEN when called from inside a tab
        self.auth = auth  # the host's secret, for loopback TCP endpoints

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Request) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return f"Request(op={self.op!r}, args={self.args!r}, id={self.id!r})"

    def to_frame(self) -> bytes:
        body: dict[str, Any] = {"id": self.id, "op": self.op, "args": self.args}
        if self.token:
            body["token"] = self.token
        if self.auth:
            body["auth"] = self.auth
        return encode_frame(body)


def encode_frame(obj: dict[str, Any]) -> bytes:
    """One JSON object as one line; raises FrameError when it would exceed MAX_FRAME."""
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    if len(data) > MAX_FRAME:
        raise FrameError(f"frame of {len(data)} bytes exceeds the {MAX_FRAME}-byte limit")
    return data


def decode_object(line: bytes) -> dict[str, Any]:
    """Decode one frame into a JSON object, with an error that names what is wrong."""
    if len(line) > MAX_FRAME:
        raise FrameError(f"frame exceeds the {MAX_FRAME}-byte limit")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameError(f"frame is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FrameError(f"frame is not JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(obj, dict):
        raise FrameError(f"frame must be a JSON object, got {type(obj).__name__}")
    return obj


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
    if not isinstance(req_id, (str, int)):
        raise FrameError("request field 'id' must be a string")
    token = obj.get("token")
    if token is not None and not isinstance(token, str):
        raise FrameError("request field 'token' must be a string")
    auth = obj.get("auth")
    if auth is not None and not isinstance(auth, str):
        raise FrameError("request field 'auth' must be a string")
    return Request(op=op, args=args, id=str(req_id), token=token, auth=auth)


def ok_frame(req_id: str, result: Any) -> bytes:
    return encode_frame({"id": req_id, "ok": True, "result": result})


def error_frame(req_id: str, code: str, message: str, **extra: Any) -> bytes:
    error = {"code": code, "message": message, **extra}
    return encode_frame({"id": req_id, "ok": False, "error": error})


def event_frame(req_id: str, event: dict[str, Any]) -> bytes:
    return encode_frame({"id": req_id, "event": event})


# CLI exit codes (DESIGN.md, "The command line").
EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_NO_HOST = 3
EXIT_TIMEOUT = 4


def exit_code_for(error_code: str) -> int:
    return EXIT_TIMEOUT if error_code == TIMEOUT else EXIT_REFUSED
