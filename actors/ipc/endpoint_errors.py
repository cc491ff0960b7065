"""Why a host's endpoint cannot be used: one class per kind, each message saying what is wrong
and what to do (the CLI maps `Unreachable` to exit 3). Shared by the endpoint, its directory,
the start-up claim and the recovery of a removed socket file."""

from __future__ import annotations


class EndpointError(RuntimeError):
    """The endpoint cannot be used; the message says why and what to do."""


class HostAlreadyRunning(EndpointError):
    pass


class Unreachable(EndpointError):
    """No host can be reached at the endpoint (the CLI exits 3)."""


class QueueFull(Unreachable):
    """The host's connection queue is full (a frozen or swamped host); worth retrying."""


class NoEndpoint(Unreachable):
    """Nothing at the path: no host, or one whose socket file was removed (see endpoint_lost)."""
