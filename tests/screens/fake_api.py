"""A local stand-in for the model APIs, to bring the real CLIs to their working and permission
screens offline, for capturing them (how tests/screens/*.txt were made; see capture.sh).

    python fake_api.py anthropic 18765   # ANTHROPIC_BASE_URL=http://127.0.0.1:18765 ANTHROPIC_API_KEY=sk-ant-x claude
    python fake_api.py responses 18766   # a Codex model provider with base_url http://127.0.0.1:18766/v1
    python fake_api.py gemini 18767      # GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:18767 GEMINI_API_KEY=x gemini
    python fake_api.py chat 18768        # aider --model openai/gpt-4o --openai-api-base http://127.0.0.1:18768/v1

A prompt containing "tikiprobe" is answered, after `--delay` seconds (the working screen), with a
call of the CLI's shell tool for `mkdir demo-dir` (the permission screen); the tool's result is
answered with "Done: the directory is there." Every other request gets that text at once.
Not used by the tests: it only exists to capture the screens again when a CLI changes.
"""

from __future__ import annotations

import argparse
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DONE = "Done: the directory is there."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    api = "anthropic"
    delay = 15.0

    def log_message(self, *args) -> None:
        pass

    def reply(self, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def stream(self, events: list[str]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in events:
            data = event.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self) -> None:
        self.reply({"data": [{"id": "gpt-4o", "object": "model"}], "models": []})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        whole = json.dumps(request)
        answered = any(marker in json.dumps(_last(request)) for marker in
                       ("tool_result", "function_call_output", "functionResponse", '"role": "tool"'))
        probe = "tikiprobe" in whole and not answered and _has_tools(request)
        if "count_tokens" in self.path or "countTokens" in self.path:
            return self.reply({"input_tokens": 100, "totalTokens": 100})
        if ":generateContent" in self.path:  # Gemini's model router asks without streaming
            return self.reply({"candidates": [{"content": {"role": "model", "parts": [{"text": "{}"}]}, "finishReason": "STOP"}]})
        if probe or answered:
            time.sleep(self.delay if probe else self.delay / 2)
        getattr(self, "api_" + self.api)(request, probe)

    def api_anthropic(self, request: dict, probe: bool) -> None:
        start = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                 "model": request.get("model", "m"), "content": [], "stop_reason": None, "stop_sequence": None,
                 "usage": {"input_tokens": 100, "output_tokens": 1}}}
        if probe:
            block = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps({"command": "mkdir demo-dir", "description": "Create a demo directory"})}
        else:
            block, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": DONE}
        events = [start, {"type": "content_block_start", "index": 0, "content_block": block},
                  {"type": "content_block_delta", "index": 0, "delta": delta},
                  {"type": "content_block_stop", "index": 0},
                  {"type": "message_delta", "delta": {"stop_reason": "tool_use" if probe else "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 20}},
                  {"type": "message_stop"}]
        self.stream([f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events])

    def api_responses(self, request: dict, probe: bool) -> None:
        if probe:  # escalation makes Codex (run with -a on-request) ask before running it
            args = {"cmd": "mkdir demo-dir", "sandbox_permissions": "require_escalated",
                    "justification": "Do you want to let me create the demo-dir directory?"}
            item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "exec_command", "arguments": json.dumps(args)}
        else:
            item = {"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "output_text", "text": DONE}]}
        usage = {"input_tokens": 100, "input_tokens_details": None, "output_tokens": 8, "output_tokens_details": None, "total_tokens": 108}
        events = [{"type": "response.created", "response": {"id": "resp_1"}},
                  {"type": "response.output_item.done", "item": item},
                  {"type": "response.completed", "response": {"id": "resp_1", "usage": usage}}]
        self.stream([f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events])

    def api_gemini(self, request: dict, probe: bool) -> None:
        part = {"functionCall": {"name": "run_shell_command", "args": {"command": "mkdir demo-dir", "description": "Create a demo directory"}}} if probe else {"text": DONE}
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 8, "totalTokenCount": 108}}
        self.stream([f"data: {json.dumps(chunk)}\r\n\r\n"])

    def api_chat(self, request: dict, probe: bool) -> None:
        text = "I will create the directory.\n\n```bash\nmkdir demo-dir\n```\n" if "tikiprobe" in json.dumps(request) else DONE
        if not request.get("stream"):
            return self.reply({"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
        pieces = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": text[i:i + 8]}, "finish_reason": None}]}
                  for i in range(0, len(text), 8)]
        pieces.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        self.stream([f"data: {json.dumps(dict(p, id='c1', object='chat.completion.chunk', created=0, model='gpt-4o'))}\n\n"
                     for p in pieces] + ["data: [DONE]\n\n"])


def _last(request: dict) -> list:
    for key in ("messages", "input", "contents"):
        if isinstance(request.get(key), list):
            return request[key][-2:]
    return []


def _has_tools(request: dict) -> bool:
    return bool(request.get("tools")) or "messages" in request and "model" in request and "stream" in request


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("api", choices=["anthropic", "responses", "gemini", "chat"])
    parser.add_argument("port", type=int)
    parser.add_argument("--delay", type=float, default=15.0, help="seconds the working screen shows")
    args = parser.parse_args()
    Handler.api, Handler.delay = args.api, args.delay
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
