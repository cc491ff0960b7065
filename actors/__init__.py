"""Actors: the live, concurrent state of a tikitaka host (pykka, one thread each).

One terminal actor per tab, the workspace registry, the IPC server, the event log, the bot
(peer routing and handshakes) and the coordinator (the agent loop, `coordinator/`). Nothing here
imports the UI; actors reach it only through subscribed callbacks that post messages.

This `__init__` imports nothing so that the `tiki` command line stays fast.
"""
