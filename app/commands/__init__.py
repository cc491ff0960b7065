"""The `tiki` subcommands, one module per area, mirroring `protocol.ops`: each module's
`add_commands(subparsers)` adds its commands, and `app.cli` lists the modules explicitly.
Every handler returns an exit code (0 ok, 1 refused/failed, 2 usage, 3 no host, 4 timed out).
Nothing here imports Textual or an LLM client at import time: the command line stays fast."""
