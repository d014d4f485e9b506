"""Textual's terminal driver, reading the learner's keys no faster than the app handles them.

Textual's input thread reads the terminal as fast as bytes arrive and hands every key to
the app at once: a learner who holds a key down, pipes a file into the session or pastes
megabytes (a terminal without bracketed paste types a paste as keys) grows the app's
queue by about a kilobyte a key, and the keys after the flood wait behind all of it.

Here the thread stops reading while MAX_WAITING_EVENTS keys (or other input events) wait
unhandled: the rest waits in the terminal (the kernel keeps about 20 KB of a pty's
input), and over SSH `tutor serve` stops reading the learner's connection in turn, so the
sender is the one held back. A bracketed paste is cut at MAX_PASTE_CHARS as it streams in:
what is cut is read and dropped, never held. The learner hears of both (InputHeld,
PasteCut; TutorApp says them).

What the terminal sends is the learner's to choose (over SSH, anyone's): the parser
(TerminalParser) reads past key reports it cannot decode and bytes that are not UTF-8, and
takes the window's size only from the terminal device, never from the input. A fault in
this thread still ends the app through the tutor's crash path (tutor.crash), as one in the
app's own loop does.
"""

from __future__ import annotations

import os
import selectors
import stat
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Callable, Generator
from functools import partial

from textual import events
from textual.app import ScreenStackError
from textual.drivers.linux_driver import LinuxDriver
from textual.keys import Keys
from textual.message import Message
from textual.message_pump import MessagePump
from textual.messages import InBandWindowResize

from tutor.tui.compat import (
    BRACKETED_PASTE_END,
    BRACKETED_PASTE_START,
    ParseError,
    Peek1,
    Read1,
    TokenCallback,
    XTermParser,
    crash_in_app,
    loop_last,
)

# Input events handed to the app and not yet handled, at most: keys are checked off in
# batches of half this, and the next batch waits for the one before it.
MAX_WAITING_EVENTS = 256
# The longest paste kept: the longest text any field takes (tutor.core.tokenize's
# MAX_TEXT_CHARS; not imported: it loads `tokenizers`).
MAX_PASTE_CHARS = 100_000
HELD_NOTE_AFTER_S = 1.0  # input held back this long: the learner is told why keys lag
HELD_NOTE_EVERY_S = 10.0  # and not again within this (TutorApp shows the note 10 s)
_READ_BYTES = 4096  # as Textual reads
_WAIT_STEP_S = 0.1  # how often a held thread looks whether the app is stopping
AFTER_INPUT_WAIT_S = 0.5  # after_input waits this long at most for the input to pause


class InputHeld(Message):
    """Keys come faster than the app handles them: the rest are read as it catches up."""


class PasteCut(Message):
    """A paste of `chars` characters was cut to its first `limit`."""

    def __init__(self, chars: int, limit: int) -> None:
        super().__init__()
        self.chars = chars
        self.limit = limit


class InputEnded(Message):
    """The terminal's input ended: its other end closed (a window or connection gone
    without a hangup reaching the tutor, or stdin is /dev/null), or a piped stdin ran
    out."""

    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal  # a terminal, not a pipe: nobody is left to read the screen


class PasteCap:
    """Cuts bracketed pastes longer than `limit` characters as the text streams in.

    Call it with each piece of decoded input: it returns what goes on to the parser, the
    paste markers always included. Pastes that were cut are listed (by their length) in
    `cut` until taken."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.cut: list[int] = []
        self._inside = False
        self._length = 0  # characters of the paste so far
        # outside a paste: the last characters passed on (a start marker may span reads);
        # inside: characters not passed on yet, which may begin the end marker
        self._tail = ""

    def __call__(self, text: str) -> str:
        kept: list[str] = []
        while text:
            text = self._paste(text, kept) if self._inside else self._outside(text, kept)
        return "".join(kept)

    def _outside(self, text: str, kept: list[str]) -> str:
        window = self._tail + text
        at = window.find(BRACKETED_PASTE_START)
        if at < 0:
            kept.append(text)
            self._tail = window[-(len(BRACKETED_PASTE_START) - 1) :]
            return ""
        start = at + len(BRACKETED_PASTE_START) - len(self._tail)  # where the paste begins
        kept.append(text[:start])
        self._inside, self._length, self._tail = True, 0, ""
        return text[start:]

    def _paste(self, text: str, kept: list[str]) -> str:
        window = self._tail + text
        at = window.find(BRACKETED_PASTE_END)
        if at < 0:
            self._tail = ""
            escape = window.rfind("\x1b", -(len(BRACKETED_PASTE_END) - 1))
            if escape >= 0 and BRACKETED_PASTE_END.startswith(window[escape:]):
                window, self._tail = window[:escape], window[escape:]
            self._take(window, kept)
            return ""
        self._take(window[:at], kept)
        kept.append(BRACKETED_PASTE_END)
        if self._length > self.limit:
            self.cut.append(self._length)
        self._inside, self._tail = False, ""
        return window[at + len(BRACKETED_PASTE_END) :]

    def _take(self, text: str, kept: list[str]) -> None:
        room = self.limit - self._length
        if room > 0:
            kept.append(text[:room])
        self._length += len(text)


class TerminalParser(XTermParser):
    """Textual's parser, for input nobody vouches for.

    - A kitty key report whose numbers are past Unicode, past a C integer or split by
      colons where one number belongs made Textual's parser raise (`chr()`, `int()`), which
      ended the input thread: such a report is a key nobody pressed, and is ignored.
    - A size report in the input (`ESC[48;rows;cols;…t`, what a terminal in mode 2048
      sends) let a learner give the app a size past every cap (10,000 x 10,000 cells grew
      a session to 906 MB), and one without a pixel size made the next mouse report divide
      by zero. The size comes from the terminal device only (SIGWINCH), which `tutor serve`
      sets from the SSH client's window, capped; the reports, and the terminal's answer
      that it could send them, are dropped.
    """

    def parse(self, token_callback: TokenCallback) -> Generator[Read1 | Peek1, str, None]:
        def sized_by_the_terminal_only(token: Message) -> None:
            if isinstance(token, events.Resize | InBandWindowResize):
                self.mouse_pixels = False  # the report turned it on: no pixel coordinates
                return
            token_callback(token)

        return super().parse(sized_by_the_terminal_only)

    def _parse_extended_key(self, sequence: str) -> list[events.Key] | None:
        try:
            return super()._parse_extended_key(sequence)
        except (ValueError, OverflowError):
            return [events.Key(Keys.Ignore, sequence)]


class PacedDriver(LinuxDriver):
    """LinuxDriver whose input thread waits for the app (MAX_WAITING_EVENTS) and cuts
    pastes (MAX_PASTE_CHARS)."""

    def __init__(self, *args: object, **options: object) -> None:
        super().__init__(*args, **options)  # type: ignore[arg-type]
        self._unchecked = 0  # events sent since the last checkpoint (input thread)
        self._sent = 0  # checkpoints sent after the batches (input thread)
        self._reached = 0  # the last one the app reached (the app's thread)
        # the last checkpoint the app routed, and the widget it waits in to be reached
        self._reaching: tuple[int, MessagePump] | None = None
        self._caught_up = threading.Condition()
        self._noted_at = -HELD_NOTE_EVERY_S
        self._after_input: Callable[[], object] | None = None  # after_input's callback
        # counts the times the terminal was taken over: after a suspend it may show
        # anything, so the app forgets the rows it sent (tutor.tui.sent_rows)
        self.terminal_epoch = 0

    def start_application_mode(self) -> None:
        self.terminal_epoch += 1
        super().start_application_mode()

    def process_message(self, message: Message) -> None:
        """Runs in the input thread: after each batch, wait for the batch before it."""
        super().process_message(message)
        self._unchecked += 1
        if self._unchecked >= MAX_WAITING_EVENTS // 2:
            self._unchecked = 0
            if self._wait_for_app():
                self._sent += 1
                self.send_message(events.Callback(callback=partial(self._route, self._sent)))

    def _wait_for_app(self) -> bool:
        """Until the app has handled the batch before this one; False if it is stopping."""
        held_since = time.monotonic()
        while True:
            with self._caught_up:
                if self._caught_up.wait_for(self._is_caught_up, _WAIT_STEP_S):
                    return True
            if self.exit_event.is_set():
                return False
            reaching = self._reaching
            if reaching is not None and reaching[0] == self._sent and not reaching[1].is_running:
                self._reach(reaching[0])  # the widget went away with the batch: handled
                return True
            now = time.monotonic()
            if now - held_since > HELD_NOTE_AFTER_S and now - self._noted_at > HELD_NOTE_EVERY_S:
                self._noted_at = now
                self.send_message(InputHeld())

    def _is_caught_up(self) -> bool:
        return self._reached >= self._sent

    def _route(self, checkpoint: int) -> None:
        """The app has routed the batch: it is handled once the widget it went to (the
        focused one, or the screen) has handled it too."""
        try:
            target: MessagePump | None = self._app.focused or self._app.screen
        except ScreenStackError:
            target = None
        if target is None or not target.call_later(self._reach, checkpoint):
            self._reach(checkpoint)
        else:
            self._reaching = (checkpoint, target)

    def _reach(self, checkpoint: int) -> None:
        with self._caught_up:
            self._reached = max(self._reached, checkpoint)
            self._caught_up.notify()

    def after_input(self, callback: Callable[[], object]) -> None:
        """Any thread: run `callback` in the app once the keys the terminal holds now are
        read and handed to the app before it (a stop that keeps the last keys typed); at
        most AFTER_INPUT_WAIT_S later if the input never pauses."""
        self._after_input = callback

    def _query_in_band_window_resize(self) -> None:
        """Not asked: sizes come from the terminal device only (TerminalParser)."""

    def _run_input_thread(self) -> None:
        """Textual's wrapper of the loop shows a fault as a traceback (App.panic: server
        paths to a learner over SSH) and the app then ends with status 0, as after q. Here
        the fault goes where one in the app's loop goes: the tutor's crash path."""
        try:
            self.run_input_thread()
        except BaseException as error:
            crash_in_app(self._app, error)

    def run_input_thread(self) -> None:
        """Textual's loop (LinuxDriver.run_input_thread), with pastes cut before parsing,
        the tutor's parser, and bytes that are not UTF-8 read as U+FFFD (they raised)."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = TerminalParser(self._debug)
        decode = getincrementaldecoder("utf-8")("replace").decode
        cap = PasteCap(MAX_PASTE_CHARS)
        read = partial(os.read, self.fileno, _READ_BYTES)
        # a terminal (or /dev/null), not a pipe; isatty() says no once it has hung up
        terminal = stat.S_ISCHR(os.fstat(self.fileno).st_mode)

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for last, (_key, mask) in loop_last(ready):
                if mask & selectors.EVENT_READ:
                    try:
                        data = read()
                    except OSError:  # EIO: the terminal's other end is gone
                        data = b""
                    if not data:
                        # Ended: at its end a file stays "ready", and reading on would be a
                        # busy loop for ever (Textual's own loop does that)
                        selector.unregister(self.fileno)
                        self.send_message(InputEnded(terminal))
                        break
                    # the first bytes of a character decode to nothing until the rest come
                    kept = cap(decode(data, final=final and last))
                    for event in parser.feed(kept) if kept else ():  # "" would end it
                        self.process_message(event)
                    while cap.cut:
                        self.send_message(PasteCut(cap.cut.pop(0), MAX_PASTE_CHARS))
            for event in parser.tick():
                self.process_message(event)

        asked_at = 0.0  # when after_input's callback came
        try:
            while not self.exit_event.is_set() and selector.get_map():
                waiting = self._after_input
                ready = selector.select(0 if waiting else 0.1)
                process(ready)
                if waiting is not None:
                    asked_at = asked_at or time.monotonic()
                    if not ready or time.monotonic() - asked_at > AFTER_INPUT_WAIT_S:
                        self._after_input, asked_at = None, 0.0
                        self.send_message(events.Callback(callback=waiting))
            if self._after_input is not None:  # the input ended first
                self.send_message(events.Callback(callback=self._after_input))
            if selector.get_map():
                selector.unregister(self.fileno)
                process(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
