"""IPC: where the `tiki` command line, peer AIs and UIs reach the host.

The endpoint (a 0600 Unix socket in a private directory, or loopback TCP with a secret; hosts
starting on one take turns, and one whose file is removed makes it again), the server that reads each request against a deadline and runs it under the supervisor, the
caller's verified identity, and one handler module per area (`handlers/`), each op's
arguments checked against its schema in `protocol.ops`.

This `__init__` imports nothing: the command line imports `ipc.endpoint` on its fast path.
"""
