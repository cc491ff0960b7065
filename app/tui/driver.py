"""A Textual driver that reads the outer terminal's raw bytes itself, so keys reach the program
in the tab exactly as the terminal sent them (see `raw_input`).

Textual's own input thread parses everything into key events, and its parser turns ESC+digit
into macOS Option characters (™ ¡ £): Alt+1 could never reach a program. This driver's input
thread splits each read with `raw_input.Splitter` while the terminal view has the keyboard:
bytes for the tab go straight up the session (`app.forward_input`, no event loop in between),
mouse and focus reports and the terminal's answers go to Textual's parser (clicks on the tab
bar and widgets work), a bracketed paste becomes a Paste event, and the key after the prefix
becomes a `PrefixKey` message. Otherwise (a dialog is open, the agent panel has focus) every
byte goes to Textual's parser as usual. The kitty keyboard protocol stays off: with it the
outer terminal would send CSI-u sequences, which programs in the tab do not expect.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder
from typing import Any

from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

from .messages import PrefixKey, PrefixPending
from .raw_input import Splitter

FLUSH_AFTER = 0.05  # seconds before a cut-off sequence is taken to be keys after all


class RawDriver(LinuxDriver):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.splitter = Splitter(app.prefix_bytes)
        self._wake_r, self._wake_w = os.pipe()
        self._resume = False
        path = os.environ.get("TIKI_UI_TRACE")  # a file: every read and where its bytes went
        self._trace = open(path, "a", buffering=1) if path else None

    def start_application_mode(self) -> None:
        constants.DISABLE_KITTY_KEY = True  # type: ignore[misc]  # read by LinuxDriver when it sets the terminal up
        super().start_application_mode()

    def resume_input(self) -> None:
        """The app ran the prefix command: go on with what was typed after it (any thread)."""
        self._resume = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        splitter = self.splitter
        app: Any = self._app  # TikiApp: forwarding(), forward_input()
        try:
            while not self.exit_event.is_set():
                ready = selector.select(FLUSH_AFTER if splitter.holding else 0.1)
                data = b""
                for key, _mask in ready:
                    if key.fd == self._wake_r:
                        os.read(self._wake_r, 64)
                    else:
                        data += os.read(self.fileno, 4096)
                pending = splitter.prefix_pending
                actions: list[tuple[str, bytes]] = []
                if self._resume:
                    self._resume = False
                    if app.forwarding():
                        actions += splitter.resume()
                    else:  # the command opened a dialog: what followed is for it
                        data, splitter.pending, splitter.stopped = splitter.pending + data, b"", False
                if data:
                    if splitter.stopped or app.forwarding():
                        actions += splitter.feed(data)
                    else:
                        actions.append(("ui", data))
                elif not ready and splitter.holding:
                    actions += splitter.flush()
                if self._trace is not None and (data or actions):
                    self._trace.write(f"read {data!r} forwarding={app.forwarding()} stopped={splitter.stopped} "
                                      f"-> {actions!r}\n")
                for kind, chunk in actions:
                    if kind == "tab":
                        app.forward_input(chunk)
                    elif kind == "ui" and chunk == b"\x1b":
                        # A read of one ESC is the Escape key (terminals write sequences whole);
                        # Textual's parser would wait for more and take a quick next key for Alt+key.
                        self.process_message(events.Key("escape", "\x1b"))
                    elif kind == "ui":
                        for event in parser.feed(decode(chunk)):
                            self.process_message(event)
                    elif kind == "paste":
                        self.process_message(events.Paste(chunk.decode("utf-8", "replace")))
                    else:
                        app.post_message(PrefixKey(chunk.decode("utf-8", "replace")))
                if splitter.prefix_pending != pending:
                    app.post_message(PrefixPending(splitter.prefix_pending))
                for event in parser.tick():
                    self.process_message(event)
        finally:
            selector.close()
            for fd in (self._wake_r, self._wake_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
