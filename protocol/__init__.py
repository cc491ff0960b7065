"""Protocol: pure data and state machines, no I/O and no threads.

IPC request/response models and framing, the user's paths, `DONE(...)` parsing, the tool
catalogue and tool-call parsing/repair, loop guards, error classification and the handshake
state machine. Everything here can be tested without a process, a socket or a thread.
"""
