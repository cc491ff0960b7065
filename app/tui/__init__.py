"""The Textual UI: tab bar, terminal view and agent panel, grouped by screen area.

`run_tui` starts the same host `tiki serve` runs, then the app on top of it, and stops the
host on every way out.
"""

from __future__ import annotations

import argparse
import sys


def run_tui(args: argparse.Namespace) -> int:
    from ...actors.host import Host, HostError, HostOptions
    from .main import TikiApp

    try:
        host = Host(HostOptions(workspace=args.workspace))
        host.start()
    except HostError as exc:
        print(f"tiki: {exc}", file=sys.stderr)
        return 1
    app = None
    try:
        app = TikiApp(host)
        app.run()
    finally:
        host.stop()
    return app.return_code or 0  # Textual sets 1 when the app died of an exception
