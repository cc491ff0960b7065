"""Which agent a tab runs, from its command: `npx -y @openai/codex@latest` is Codex.

Wrappers (node, npx, uv, python -m, env VAR=x ...) are looked through to the first word that
names a program; that program's name is compared with the `commands` of each rules file.
A command that names no known agent (bash, vim, `node cli.js`) gives None: the caller then
tries each agent's screen signature and otherwise uses the generic shell rules.
"""

from __future__ import annotations

from typing import Iterable, Mapping

# Programs that run another program: the agent is the first word after them that is not an option.
WRAPPERS = frozenset({
    "env", "npx", "npm", "pnpm", "pnpx", "yarn", "bun", "bunx", "deno", "node", "nodejs", "tsx",
    "python", "python3", "py", "uv", "uvx", "pipx", "sudo", "nice", "nohup", "exec", "time",
    "stdbuf", "run", "dlx", "x", "tool",
})
# AI CLIs by program name: a tab running one is a peer by default (it gets the handshake and
# needs no consent). Every program a bundled rules file names (tests check), and CLIs that have
# no rules yet.
AI_CLIS = frozenset({
    "claude", "claude-code", "codex", "gemini", "gemini-cli", "aider", "aider-chat", "agy", "antigravity-cli",
    "opencode", "qwen", "goose", "amp", "cursor-agent", "copilot",
})
# Path parts that say nothing about the program (`.../claude-code/cli.js` is claude-code).
_GENERIC = frozenset({"cli", "index", "main", "bin", "dist", "build", "lib", "src"})
_SUFFIXES = (".exe", ".cmd", ".bat", ".js", ".mjs", ".cjs", ".py")


def program_name(word: str) -> str:
    """`/usr/bin/node` -> node, `@openai/codex@latest` -> codex, `claude.exe` -> claude,
    `/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js` -> claude-code."""
    parts = [part for part in word.replace("\\", "/").split("/") if part]
    name = ""
    while parts and (not name or name in _GENERIC):
        name = parts.pop().lower()
        if "@" in name[1:]:
            name = name[: name.index("@", 1)]  # a version: claude-code@2.1
        for suffix in _SUFFIXES:
            if name.endswith(suffix):
                name = name[: -len(suffix)]
    return name


def runs_ai_cli(command: Iterable[str]) -> bool:
    """Does `command` run one of the AI_CLIS, looking through wrappers (`env HOME=x claude`)?"""
    return identify(command, _AI_OWNERS) is not None


def identify(command: Iterable[str], owners: Mapping[str, str]) -> str | None:
    """The kind whose `commands` name the program `command` runs; `owners` maps name -> kind."""
    for word in command:
        if word.startswith("-") or ("=" in word and "/" not in word.split("=", 1)[0]):
            continue  # a wrapper's option, or VAR=value before the program
        name = program_name(word)
        if name in owners:
            return owners[name]
        if name not in WRAPPERS:
            return None  # some other program: not an agent known by name
    return None


_AI_OWNERS = {name: name for name in AI_CLIS}
