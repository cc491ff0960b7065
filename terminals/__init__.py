"""Terminals: PTY child processes, the VT screen model, scrollback, text extraction and key names.

This package owns everything between a child program and a grid of styled cells. It knows
nothing of actors, the UI or any LLM: `actors.terminal` drives it from a reader thread.
"""
