"""The coordinator: the local-LLM agent that acts on the tabs for the user.

It owns, one module each:
- `actor`: the `Coordinator` actor (mailbox: submit, cancel, reset, status, peer messages)
  and its worker thread, which runs one request at a time;
- `loop`: the agent loop itself, readable in one class (ask the model, parse one action,
  run it, feed the result back, until `done`);
- `tools`: carrying out the catalogued actions on the workspace; `consent` (typing into
  shell tabs) and `inbox` (peer messages that arrive during a run) are its helpers;
- `backends/`: the LLM backends (Ollama, embedded llama.cpp) and `backends.choice`, the one
  decision of which backend answers, shared with the TUI and `tiki doctor`;
- `transcript`: every run appended to a JSON-lines file;
- `events`: the progress events a run publishes on the host's bus (`meter`: a turn's, as it generates);
- `limits`: the timeouts and limits used across the package;
- `ops`: the wiring into a host (the service, the `agent.*` IPC ops, the peer hooks).

Nothing here imports the UI. This `__init__` imports nothing, so `tiki` stays fast.
"""
