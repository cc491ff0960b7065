"""App: the `tiki` command line and the Textual UI.

The command line's fast path (`app.cli`, `app.client`) imports no Textual and no LLM client;
the TUI lives in `app.tui` and is imported only when `tiki` runs without a subcommand.
"""
