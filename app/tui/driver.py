"""A Textual driver that reads the outer terminal's raw bytes itself, so keys reach the program
in the tab exactly as the terminal sent them (see `raw_input`).

Textual's own input thread parses everything into key events, and its parser turns ESC+digit
into macOS Option characters (™ ¡ £): Alt+1 could never reach a program. This driver's input
thread splits every read with `raw_input.Splitter`: the prefix, and the key after it (a
`PrefixKey` message), whoever has the keyboard -- the agent panel, a dialog --, since Textual's
parser cannot tell every prefix (`alt+1`) from other keys; mouse and focus reports and the
terminal's answers to Textual's parser (clicks on the tab bar and widgets work). Keys go
straight up the session (`app.forward_input`, no event loop in between) while the terminal view
has the keyboard, or the agent panel in KEY mode (but Shift+Tab, which cycles the mode), and so
does a bracketed paste, in order with them; otherwise keys go to Textual's parser and a paste
becomes a Paste event. The kitty keyboard protocol stays off: with it the outer terminal would
send CSI-u sequences, which programs in the tab do not expect. The keypad is kept in
application mode while the UI runs, as tmux keeps its terminal, so KP1 is told from 1; the host
gives each tab the form its program asked for, and Textual's widgets get the characters. The
terminal is asked for its default colours once it is set up (`outer_colors`).

When the outer terminal goes away (a read finds its end, a write fails) the app is told once
and closes: a detach, the tabs run on. Output goes through `TerminalWriter`, which never blocks
the app on a dead terminal, and a SIGCONT the driver did not ask for (a hangup sends one)
does not set the terminal up again.
"""

from __future__ import annotations

import os
import re
import selectors
import threading
from codecs import getincrementaldecoder
from typing import Any

from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.keys import _character_to_key

from ...terminals.keys import keypad_keys
from . import type_ahead
from .agent_panel import ModeInput
from .messages import Detached, PrefixKey, PrefixPending
from .outer_colors import QUERY as COLORS_QUERY
from .outer_colors import OuterColors
from .outer_margins import QUERY as MARGINS_QUERY
from .outer_margins import OuterMargins
from .raw_input import Splitter
from .terminal_writer import TerminalWriter

FLUSH_AFTER = 0.05  # seconds before a cut-off sequence is taken to be keys after all
BACKTAB = b"\x1b[Z"  # Shift+Tab
KEYPAD_APPLICATION, KEYPAD_NUMERIC = "\x1b=", "\x1b>"  # DECKPAM, DECKPNM
# Alt with a digit, - = or §: Textual's parser turns these into the characters WezTerm's Option
# keys make on macOS (ESC 2 -> "™"), so a field in the panel or a dialog got text nobody typed.
# They are Alt keys here as they are to the tab. (No input sequence starts ESC + one of them.)
ALT_OPTION = re.compile(rb"\x1b([0-9=\-]|\xc2\xa7)")


def keys_target(app: Any) -> str | None:
    """Where keys go now (asked on the input thread: reads only): "view" when the terminal view
    has the keyboard, "panel" when the agent panel's input line has it in KEY mode ("keys go
    straight to the active tab": as the terminal sent them, not as Textual re-encodes them --
    its parser makes Alt+1 a "¡"), None when Textual's widgets take them (a dialog, the panel's
    other modes, scrollback mode)."""
    if app.forwarding():
        return "view"
    try:
        focused = app.screen.focused
        if isinstance(focused, ModeInput) and focused.panel.mode == "KEY" and app.view.tab_id is not None:
            return "panel"
    except Exception:  # noqa: BLE001 - mid-teardown: Textual has them
        pass
    return None


class RawDriver(LinuxDriver):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.splitter = Splitter(app.prefix_bytes)
        self.colors = OuterColors(self.splitter, app.client)
        self.margins = OuterMargins()  # what the terminal said of its margins: `direct_paint` reads it
        self._wake_w = -1  # the input thread's wake-up pipe: one per run (a suspend ends the thread)
        self._resume = False
        self._lost = threading.Event()  # the outer terminal is gone
        path = os.environ.get("TIKI_UI_TRACE")  # a file: every read and where its bytes went
        self._trace = open(path, "a", buffering=1) if path else None

    def start_application_mode(self) -> None:
        constants.DISABLE_KITTY_KEY = True  # type: ignore[misc]  # read by LinuxDriver when it sets the terminal up
        super().start_application_mode()
        if (before := type_ahead.settings_before()) is not None:
            self.attrs_before = before  # what a suspend or the end gives back: the shell's own (`type_ahead`)
        # Textual's writer has the set-up sequences; once they are out, ours takes over.
        textual_writer = self._writer_thread
        if self._file is None or textual_writer is None:
            return  # (no terminal to write to: nothing to take over)
        self._writer_thread = TerminalWriter(self._file, lambda exc: self.terminal_lost(f"a write failed: {exc}"))
        self._writer_thread.start()
        textual_writer.stop()  # (a writer that died on the terminal has nothing left to join)
        # The keypad in application mode (DECKPAM), as tmux keeps its own terminal: KP1 comes as
        # SS3 q, not as the 1 of the digits row, so a program that asked for it (vim, mc) can
        # get it; the host gives every tab the form its program asked for (`keys.typed_keys`).
        self.write(KEYPAD_APPLICATION)
        if not os.environ.get("TERM", "").startswith("linux"):  # (the Linux console prints an OSC it does not know)
            self.write(COLORS_QUERY)  # for the tabs' programs that ask (`outer_colors`)
            self.colors.asked()
            # Can it scroll the view beside the panel (`outer_margins`)? Not asked of Apple's
            # Terminal, which prints a DECRQM's last byte, as Textual notes, nor of the Linux
            # console: neither has the margins.
            if os.environ.get("TERM_PROGRAM") != "Apple_Terminal":
                self.write(MARGINS_QUERY)

    def stop_application_mode(self) -> None:
        # (before Textual shows the cursor again: the user's own shape, not the tab program's)
        reset = getattr(self._app, "cursor_style_reset", None)
        if reset is not None and (sequence := reset()):
            self.write(sequence)
        self.write(KEYPAD_NUMERIC)  # the shell after a detach or ^Z gets its digits back
        super().stop_application_mode()

    def _sigcont_application(self, *_: Any) -> None:
        # Textual sets the terminal up again on every SIGCONT; only one after its own SIGTSTP is
        # a resume. The kernel sends SIGCONT with a hangup's SIGHUP, and a second input thread
        # would then read the same terminal as the first.
        if self._must_signal_resume:
            super()._sigcont_application()

    def terminal_lost(self, why: str) -> None:
        """The outer terminal is gone (any thread): the app closes, once -- a detach."""
        if not self._lost.is_set():
            self._lost.set()
            self._app.post_message(Detached(f"the terminal went away ({why}); the tabs keep running"))

    def resume_input(self) -> None:
        """The app ran the prefix command: go on with what was typed after it (any thread)."""
        self._resume = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _to_textual(self, parser: XTermParser, decode: Any, chunk: bytes) -> None:
        if chunk == b"\x1b":
            # A read of one ESC is the Escape key (terminals write sequences whole); Textual's
            # parser would wait for more and take a quick next key for Alt+key.
            self.process_message(events.Key("escape", "\x1b"))
            return
        start = 0
        for alt in ALT_OPTION.finditer(chunk):  # Alt keys, not the characters Textual makes of them
            self._parse(parser, decode, chunk[start:alt.start()])
            self.process_message(events.Key(f"alt+{_character_to_key(alt[1].decode())}", None))
            start = alt.end()
        self._parse(parser, decode, chunk[start:])

    def _parse(self, parser: XTermParser, decode: Any, data: bytes) -> None:
        if data:  # (an empty feed is the end of input to Textual's parser)
            for event in parser.feed(decode(data)):
                self.process_message(event)

    def run_input_thread(self) -> None:
        wake_r, self._wake_w = os.pipe()
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(wake_r, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        splitter = self.splitter
        app: Any = self._app  # TikiApp: forwarding(), forward_input()
        try:
            while not self.exit_event.is_set():
                ready = selector.select(FLUSH_AFTER if splitter.holding else 0.1)
                data = b""
                for key, _mask in ready:
                    if key.fd == wake_r:
                        os.read(wake_r, 64)
                        continue
                    try:
                        read = os.read(self.fileno, 4096)
                    except OSError as exc:  # EIO: the terminal hung up
                        read, why = b"", f"a read failed: {exc}"
                    else:
                        why = "its input ended"
                    if not read:  # nothing more will come: stop reading it (not spin on it)
                        selector.unregister(self.fileno)
                        self.terminal_lost(why)
                    data += read
                pending = splitter.prefix_pending
                actions: list[tuple[str, bytes]] = []
                if self._resume:  # the prefix command ran: what followed goes where it now belongs
                    self._resume = False
                    actions += splitter.resume()
                if data:
                    actions += splitter.feed(data)
                elif not ready and splitter.holding:
                    actions += splitter.flush()
                # (one look for all: after a command the splitter stops, so they share a target)
                target = keys_target(app) if actions else None
                if self._trace is not None and (data or actions):
                    self._trace.write(f"read {data!r} target={target} stopped={splitter.stopped} -> {actions!r}\n")
                self.colors.tick()
                for kind, chunk in actions:
                    if kind == "ui" and not (chunk := self.margins.take(self.colors.take(chunk))):
                        continue  # (the terminal's answers to the UI's questions, and nothing else)
                    if kind == "tab" and target == "panel":
                        for n, piece in enumerate(chunk.split(BACKTAB)):  # Shift+Tab cycles the mode
                            if n:
                                self._to_textual(parser, decode, BACKTAB)
                            if piece:
                                app.forward_input(piece)
                    elif kind == "prefix" or kind == "tab" and target is not None:
                        app.forward_input(chunk)
                    elif kind in ("tab", "ui"):
                        # (Textual's parser knows the keypad's digits as SS3 but not KP= or KP,)
                        self._to_textual(parser, decode, keypad_keys(chunk, app_keypad=False))
                    elif kind == "paste" and target is not None:
                        # Up the session from here, as keys go: through the event loop, keys read
                        # with it (Enter right after a paste) would reach the tab before it.
                        if (tab := app.view.tab_id) is not None:
                            app.client.paste(tab, chunk.decode("utf-8", "replace"))
                    elif kind == "paste":
                        self.process_message(events.Paste(chunk.decode("utf-8", "replace")))
                    else:
                        # (prefix, then KP1: tab 1, as before the keypad sent SS3)
                        app.post_message(PrefixKey(keypad_keys(chunk, app_keypad=False).decode("utf-8", "replace")))
                if splitter.prefix_pending != pending:
                    app.post_message(PrefixPending(splitter.prefix_pending))
                for event in parser.tick():
                    self.process_message(event)
        finally:
            selector.close()
            wake_w, self._wake_w = self._wake_w, -1
            for fd in (wake_r, wake_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
