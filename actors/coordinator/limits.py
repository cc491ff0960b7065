"""Timeouts and limits of the coordinator, in one place (user-tunable ones are settings in
`protocol.settings.CoordinatorSettings`)."""

ASK = 10.0
"""Seconds to wait for another actor's answer (workspace, terminal, bot) before giving up."""

CONSENT_TIMEOUT = 300.0
"""Seconds a consent question waits for the user before it counts as "no"."""

ALIVE_EVERY = 1.0
"""Seconds between liveness probes of a silent `agent.ask` stream (ctrl+c cancels at once)."""
