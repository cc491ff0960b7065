"""Timeouts and limits of the coordinator, in one place (user-tunable ones are settings in
`protocol.settings.CoordinatorSettings`)."""

from ...protocol.limits import ASK  # noqa: F401 - the host-wide answer timeout, re-exported here

ALIVE_EVERY = 1.0
"""Seconds between liveness probes of a silent `agent.ask` stream (ctrl+c cancels at once)."""

PROGRESS_EVERY = 0.25
"""Seconds between two `generating` progress events of one turn (the last one always goes)."""

RETRY_TEMPERATURE = 0.4
"""Temperature of a turn retried after a cut-off or an unusable reply: at temperature 0 the
same prompt gives the same reply again."""

WINDOW_SAFETY = 0.04
"""Share of the context window kept free for the chat template and our estimate's error."""

COMPACT_TO = 0.7
"""Compaction shortens the prompt to this share of its limit, so the next turns append to it
(and reuse the prompt cache) before it must be compacted again."""

PROBE_TIMEOUT = 1.0
"""Seconds a backend check (before every run) waits for the server to answer."""
