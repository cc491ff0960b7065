"""Type a line into a shell and read its echo back, tikitaka against tmux, like for like:

- CLI against CLI: `tiki terminal-send` + `tiki terminal-read` processes, polled until the echo
  shows, against `tmux send-keys` + `tmux capture-pane` processes, polled the same way. This is
  what a user's script or a peer AI pays.
- socket against socket: one long-lived client of each server, no process start-up: our JSON
  client on the host's socket, against a `tmux -C` control-mode client (commands written to
  its stdin, answers read from its stdout; the control client relays over tmux's socket, one
  extra hop on tmux's side).

Both shells are fresh `bash --norc --noprofile` of the same size; the sides are interleaved.

    python bench/send_read.py [--n 40]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import time

from common import TikiHost, Tmux, summary

from tikitaka.actors.ipc.endpoint import connect
from tikitaka.protocol import ipc


class TikiSocket:
    """One request per connection, as the host's protocol is: connect, send, read the reply."""

    def __init__(self, path: str) -> None:
        self.path = path

    def call(self, op: str, args: dict) -> dict:
        from pathlib import Path

        conn = connect(Path(self.path), 10.0)
        try:
            conn.sendall(ipc.Request(op=op, args=args, id="b").to_frame())
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        finally:
            conn.close()
        return json.loads(data)["result"]


class TmuxControl:
    """A `tmux -C` control-mode client: commands on stdin, `%begin … %end` blocks on stdout."""

    def __init__(self, tmux: Tmux) -> None:
        self.proc = subprocess.Popen(["tmux", "-L", tmux.name, "-C", "attach"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.proc.stdout is not None
        for line in self.proc.stdout:  # the attach's own %begin/%end block comes first
            if line.startswith("%end"):
                break

    def command(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out: list[str] = []
        inside = False
        for reply in self.proc.stdout:
            if reply.startswith("%begin"):
                inside = True
            elif reply.startswith(("%end", "%error")) and inside:
                return "".join(out)
            elif inside:
                out.append(reply)
        return "".join(out)

    def close(self) -> None:
        self.proc.kill()


def timed(send, read, mark: str) -> float:
    start = time.perf_counter()
    send(mark)
    while mark not in read():
        pass
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    opts = parser.parse_args()
    host = TikiHost('[[tab]]\nname = "sh"\ncommand = ["bash", "--norc", "--noprofile"]\n')
    tmux = Tmux()
    pane = tmux.new_window("bash --norc --noprofile")
    control = TmuxControl(tmux)
    tiki = TikiSocket(host.env["TIKI_SOCKET"])
    time.sleep(0.5)
    results: dict[str, list[float]] = {"tiki cli": [], "tmux cli": [], "tiki socket": [], "tmux socket": []}
    try:
        for i in range(opts.n):
            results["tiki cli"].append(timed(
                lambda m: host.cli("terminal-send", "sh", f"echo {m}"),
                lambda: host.cli("terminal-read", "sh", "--lines", "5").stdout, f"tc{i}x"))
            results["tmux cli"].append(timed(
                lambda m: tmux.run("send-keys", "-t", pane, f"echo {m}", "Enter"),
                lambda: tmux.capture(pane), f"xc{i}x"))
            results["tiki socket"].append(timed(
                lambda m: tiki.call("terminal.send", {"name": "sh", "text": f"echo {m}"}),
                lambda: tiki.call("terminal.read", {"name": "sh", "lines": 5})["text"], f"ts{i}x"))
            results["tmux socket"].append(timed(
                lambda m: control.command(f"send-keys -t {pane} 'echo {m}' Enter"),
                lambda: control.command(f"capture-pane -p -t {pane} -S -5"), f"xs{i}x"))
        for name, samples in results.items():
            print(f"{name:<12} {summary(samples)}")
        for kind in ("cli", "socket"):
            ours, ref = sorted(results[f"tiki {kind}"]), sorted(results[f"tmux {kind}"])
            print(f"median ratio tiki/tmux, {kind}: {ours[len(ours) // 2] / ref[len(ref) // 2]:.2f} "
                  "(1.0 = as fast as tmux; higher is slower)")
    finally:
        control.close()
        host.close()
        tmux.close()


if __name__ == "__main__":
    try:
        main()
    except (OSError, socket.error) as exc:  # a bench that cannot run says why
        raise SystemExit(f"send_read: {exc}") from None
