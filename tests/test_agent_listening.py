"""A shell tab whose command waits for the keyboard inside an event loop -- Node's readline, an
asyncio program -- asking something with no prompt sign (`What is your name? `) is idle once it
has been quiet a moment, not `working` until it ends: such a program waits in epoll with its
terminal in the set, not in a read of it (Linux: /proc/PID/task/*/syscall and the epoll
descriptor's fdinfo) -- nor is one whose reading thread is not its main one (Go reads in a
goroutine's thread). A coordinator's send waited for an `idle` that never came.

Real programs in a real host's bash tab; the controls are the same runtimes printing while they
watch the keyboard (working: recent output), watching it quietly with no question on the cursor's
line (working: the job -- as a quiet build in `docker exec -it` waits) and waiting on a timer
alone (working: the job)."""

from __future__ import annotations

import shutil
import sys

import pytest
from conftest import BASH_TAB, wait_until
from ipc_helpers import request

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="epoll and /proc: Linux")

NODE_QUESTION = ("const rl = require('readline').createInterface({input: process.stdin, output: process.stdout});"
                 "rl.question('What is your name? ', a => { console.log('hi ' + a); process.exit(0); });")
NODE_TICKING = ("process.stdin.setRawMode(true); process.stdin.on('data', () => process.exit(0));"
                "let n = 0; setInterval(() => process.stdout.write('\\rtick ' + n++), 300);")
NODE_TIMER = "setTimeout(() => console.log('timer-done'), 60000);"
NODE_QUIET_LISTENER = ("process.stdin.setRawMode(true); process.stdin.on('data', () => process.exit(0));"
                       "console.log('building quietly');")  # (the cursor on the empty line below)
PY_ASYNCIO = ("import asyncio, sys\n"
              "async def main():\n"
              "    loop = asyncio.get_running_loop(); got = asyncio.Event()\n"
              "    loop.add_reader(sys.stdin.fileno(), got.set)\n"
              "    print('Which branch should I merge? ', end='', flush=True)\n"
              "    await got.wait(); print('merging', sys.stdin.readline().strip())\n"
              "asyncio.run(main())\n")

# A select prompt as @clack/prompts draws one (create-vite, create-astro, sv create): the cursor
# hidden, the choices drawn, raw keys awaited.
NODE_SELECT = ("process.stdout.write('\\x1b[?25l\\u25c6  Select a framework:\\n\\u2502  \\u25cf Vanilla\\n"
               "\\u2502  \\u25cb Vue\\n\\u2514\\n');"
               "process.stdin.setRawMode(true);"
               "process.stdin.on('data', () => { process.stdout.write('\\x1b[?25hchose Vanilla\\n'); process.exit(0); });")
PY_READER_THREAD = ("import sys, threading\n"  # (as Go's goroutines read: a thread of its own)
                    "print('Your choice? ', end='', flush=True)\n"
                    "reader = threading.Thread(target=lambda: print('chose', sys.stdin.readline().strip()))\n"
                    "reader.start(); reader.join()\n")

# The main thread reads the terminal while another prints, as a Go program's may (a goroutine
# reads stdin on whichever thread runs it: `docker exec -it`, `kubectl exec -it` with a build
# streaming); then it stops printing and only waits for the line.
PY_READS_AND_PRINTS = ("import sys, threading, time\n"
                       "def work():\n"
                       "    for n in range(1, 16):\n"
                       "        print(f'step {n}: compiling module_{n}', flush=True); time.sleep(0.2)\n"
                       "    print('built', flush=True)\n"
                       "threading.Thread(target=work, daemon=True).start()\n"
                       "print('read', sys.stdin.readline().strip())\n")


def explain(host) -> tuple[str, str]:
    reply = request(host.env, "terminal.explain", name="sh")["result"]
    return reply["state"], reply["rule"]


def run(host, tmp_path, name: str, source: str, program: str) -> None:
    script = tmp_path / name
    script.write_text(source)
    # (the shell at its prompt first: a verdict about the program before is not this one's)
    wait_until(lambda: explain(host) == ("idle", "prompt"), 10, 0.1, what="the shell's prompt")
    assert host.run("terminal-send", "sh", f"{program} {script}").returncode == 0


def settles_as(host, expected: tuple[str, str], holds: float = 2.5) -> None:
    """`expected` within 5 s, and still `expected` `holds` s on (a quiet-period rule would flip)."""
    wait_until(lambda: explain(host) == expected, 5, 0.1, what=f"sh {expected}")
    try:
        wait_until(lambda: explain(host) != expected, holds, 0.1)
    except AssertionError:
        return
    pytest.fail(f"sh left {expected}: {explain(host)}")


def test_python_asking_with_no_prompt_sign_from_an_event_loop_or_a_thread_is_idle(serve, tmp_path):
    host = serve(BASH_TAB)
    run(host, tmp_path, "ask.py", PY_ASYNCIO, sys.executable)
    host.wait_text("sh", "Which branch should I merge?")
    settles_as(host, ("idle", "listens-terminal"))
    assert host.run("terminal-send", "sh", "main").returncode == 0
    host.wait_text("sh", "merging main")

    run(host, tmp_path, "thread.py", PY_READER_THREAD, sys.executable)  # its main thread waits on another
    host.wait_text("sh", "Your choice?")
    settles_as(host, ("idle", "listens-terminal"))
    assert host.run("terminal-send", "sh", "b").returncode == 0
    host.wait_text("sh", "chose b")



def test_a_program_that_reads_its_terminal_while_it_prints_is_working_until_it_stops(serve, tmp_path):
    """It read `idle` (reads-terminal: its main thread waits in a read of the terminal) all the
    while it printed a step every 0.2 s: a tab streaming a build showed idle."""
    host = serve(BASH_TAB)
    run(host, tmp_path, "build.py", PY_READS_AND_PRINTS, sys.executable)
    host.wait_text("sh", "step 3:")
    seen = set()
    while "built" not in host.read("sh", 3):
        seen.add(explain(host))
    assert seen == {("working", "recent-output")}, seen
    settles_as(host, ("idle", "reads-terminal"))
    assert host.run("terminal-send", "sh", "go").returncode == 0
    host.wait_text("sh", "read go")


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_node_waiting_for_the_keyboard_is_idle_and_node_at_work_is_not(serve, tmp_path):
    host = serve(BASH_TAB)
    run(host, tmp_path, "ask.js", NODE_QUESTION, "node")
    host.wait_text("sh", "What is your name?")
    settles_as(host, ("idle", "listens-terminal"))
    assert host.run("terminal-send", "sh", "Ann").returncode == 0
    host.wait_text("sh", "hi Ann")

    run(host, tmp_path, "select.js", NODE_SELECT, "node")  # a menu, the cursor hidden: idle, not `unknown`
    host.wait_text("sh", "Select a framework:")
    settles_as(host, ("idle", "listens-hidden-cursor"))
    assert host.run("terminal-key", "sh", "enter").returncode == 0
    host.wait_text("sh", "chose Vanilla")

    run(host, tmp_path, "tick.js", NODE_TICKING, "node")  # it watches the keyboard, and prints
    host.wait_text("sh", "tick 3")
    settles_as(host, ("working", "recent-output"))
    assert host.run("terminal-key", "sh", "q").returncode == 0

    run(host, tmp_path, "quiet.js", NODE_QUIET_LISTENER, "node")  # it watches the keyboard, asks nothing
    host.wait_text("sh", "building quietly")
    settles_as(host, ("working", "job"))
    assert host.run("terminal-key", "sh", "q").returncode == 0

    run(host, tmp_path, "timer.js", NODE_TIMER, "node")  # it waits on a timer alone: a quiet job
    wait_until(lambda: explain(host) == ("working", "job"), 5, 0.1, what="the timer's job")
    settles_as(host, ("working", "job"))
    assert host.run("terminal-key", "sh", "ctrl+c").returncode == 0
