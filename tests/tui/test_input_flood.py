"""A learner who floods the tutor with keys or pastes megabytes: the tutor's memory stays
flat, and it answers the next key once the flood stops.

The real `tutor` runs on a pty at 80×24, drawn on a pyte screen; its memory is read from
/proc (VmHWM: the peak since it was reset just before the flood).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import threading
from collections.abc import Callable
from pathlib import Path

import pyte
import pytest
from textual import events
from textual.message import Message

from tests.tui.conftest import LEARNER, tutor_on_pty
from tests.waits import block_until, wait_until
from tutor.tui.app import TutorApp
from tutor.tui.driver import MAX_PASTE_CHARS, MAX_WAITING_EVENTS, InputHeld, PacedDriver, PasteCap

pytestmark = pytest.mark.slow  # the fast tier leaves these out (tests/conftest.py)

COLUMNS, ROWS = 80, 24
MB = 1024 * 1024
GROWTH_LIMIT_MB = 16  # the most the tutor may grow by during a flood
KEYS_FLOOD = 64 * 1024  # keystrokes: the tutor handles ~5,000 a second here
PASTE_FLOOD = 64 * MB
WAIT_S = 120.0  # generous: the machine is shared
START, END = "\x1b[200~", "\x1b[201~"


def memory_mb(pid: int, field: str) -> float:
    """VmRSS (now) or VmHWM (the peak since the last reset) of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")


class PtyTutor:
    """`tutor --lang en` on a pty, its screen drawn on pyte while `reading` is set."""

    def __init__(self, data_dir: Path) -> None:
        self.leader, self.child = tutor_on_pty(
            data_dir, COLUMNS, ROWS, "--lang", "en", "--learner", LEARNER
        )
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self._stream = pyte.ByteStream(self.screen)
        self._lock = threading.Lock()
        self.reading = threading.Event()
        self.reading.set()
        self.written = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while self.reading.wait():
            try:
                data = os.read(self.leader, 65536)
            except OSError:  # EIO: the tutor closed the terminal
                return
            if not data:
                return
            with self._lock:
                self._stream.feed(data)

    @property
    def text(self) -> str:
        with self._lock:
            buffer = self.screen.buffer
            rows = (buffer[y] for y in range(ROWS))
            return "\n".join("".join(row[x].data for x in range(COLUMNS)) for row in rows)

    def wait_for(self, words: str) -> None:
        """Until `words` are on screen (ignoring spaces, line breaks and the edge of a
        notification, which lines wrapped in it begin with), or in a notification read
        alone: beside a screen that fills its rows (the course map), each of its lines
        follows the screen's own text on the same row."""
        wanted = re.sub(r"\s+", "", words)

        def shown() -> bool:
            text = self.text
            notified = "".join(line.rsplit("▌", 1)[1] for line in text.splitlines() if "▌" in line)
            return any(wanted in re.sub(r"[\s▌]+", "", seen) for seen in (text, notified))

        block_until(shown, lambda: f"{words!r} on screen; it shows:\n{self.text}", timeout=WAIT_S)

    def flood(self, data: bytes, chunk: int = 4096) -> float:
        """Write `data` as fast as the terminal takes it, watching the tutor's peak memory
        meanwhile: the flood stops early (and the tutor is killed) once it grew by
        GROWTH_LIMIT_MB. How much it grew, in MB."""
        pid = self.child.pid
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # restart VmHWM
        before = memory_mb(pid, "VmRSS")
        growth = 0.0

        def too_big() -> bool:
            nonlocal growth
            growth = memory_mb(pid, "VmHWM") - before
            return growth >= GROWTH_LIMIT_MB

        def write() -> None:
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self.leader, view[:chunk]) :]
                except OSError:  # the tutor was killed
                    return
                self.written = len(data) - len(view)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        block_until(lambda: too_big() or not writer.is_alive(), "the flood", timeout=WAIT_S)
        if growth >= GROWTH_LIMIT_MB:
            self.child.kill()  # before it takes the machine's memory
        return growth

    def quit(self) -> int:
        """q, and the tutor's exit status."""
        os.write(self.leader, b"q")
        return self.child.wait(timeout=WAIT_S)

    def close(self) -> None:
        if self.child.poll() is None:
            self.child.kill()
            self.child.wait(timeout=60)
        os.close(self.leader)


@pytest.fixture
def tutor(tmp_path: Path) -> PtyTutor:
    started = PtyTutor(tmp_path)
    yield started
    started.close()


@pytest.mark.pty
def test_a_flood_of_keys_is_read_as_fast_as_the_tutor_handles_it(tutor: PtyTutor) -> None:
    tutor.wait_for("pick a lesson")
    growth = tutor.flood(b"x" * KEYS_FLOOD)
    assert growth < GROWTH_LIMIT_MB, f"{growth:.0f} MB after {tutor.written:,} keys"
    assert tutor.written == KEYS_FLOOD and tutor.child.poll() is None
    assert tutor.quit() == 0  # q, behind the last of the flood, still quits


@pytest.mark.pty
def test_a_paste_of_64_megabytes_is_cut_as_it_streams_in(tutor: PtyTutor) -> None:
    tutor.wait_for("pick a lesson")
    tutor.reading.clear()  # nobody reads the screen: the tutor cannot draw either
    growth = tutor.flood(START.encode() + b"x" * PASTE_FLOOD + END.encode(), 65536)
    assert growth < GROWTH_LIMIT_MB, f"{growth:.0f} MB after {tutor.written / MB:.1f} MB"
    assert tutor.written == PASTE_FLOOD + len(START + END) and tutor.child.poll() is None
    tutor.reading.set()
    tutor.wait_for(f"The pasted text is {PASTE_FLOOD:,} characters long")
    assert tutor.quit() == 0


# the cut itself, piece by piece ------------------------------------------------------


def cut_in_pieces(cap: PasteCap, text: str, size: int) -> str:
    return "".join(cap(text[at : at + size]) for at in range(0, len(text), size))


@pytest.mark.parametrize("size", [1, 2, 5, 7, 4096])
def test_pastes_are_cut_at_the_limit_however_the_reads_split_them(size: int) -> None:
    paste = "猫\x1b[A" + "y" * 20  # an escape sequence inside a paste stays in it
    typed = "ab\x1b[Bc" + START + paste + END + "d" + START + "short" + END + "\x1b"
    cap = PasteCap(limit=10)
    passed = cut_in_pieces(cap, typed, size)
    assert passed == "ab\x1b[Bc" + START + paste[:10] + END + "d" + START + "short" + END + "\x1b"
    assert cap.cut == [len(paste)]


def test_a_paste_within_the_limit_and_keys_pass_unchanged() -> None:
    typed = "q" + START + "x" * MAX_PASTE_CHARS + END + "\x1b[201~n"  # a stray end marker
    cap = PasteCap(MAX_PASTE_CHARS)
    assert cut_in_pieces(cap, typed, 4096) == typed
    assert cap.cut == []


def test_a_paste_that_never_ends_is_kept_only_to_the_limit() -> None:
    cap = PasteCap(limit=5)
    assert cap(START + "abcdefgh") == START + "abcde"
    assert cap("ijk\x1b[20") == ""  # what may begin the end marker waits for the next read
    assert cap("1~z") == END + "z"
    assert cap.cut == [len("abcdefghijk")]


def test_the_paste_limit_is_the_longest_text_a_field_takes() -> None:
    from tutor.core.tokenize import MAX_TEXT_CHARS

    assert MAX_PASTE_CHARS == MAX_TEXT_CHARS


# the wait for the app, with the app stuck --------------------------------------------


async def test_keys_wait_for_a_stuck_app_and_the_learner_is_told(
    make_app: Callable[..., TutorApp],
) -> None:
    """PacedDriver's input side, fed keys from a thread as its input thread would be, while
    the app handles nothing: it hands over MAX_WAITING_EVENTS keys, waits, says so, and
    goes on once the app catches up."""
    sent: list[Message] = []

    class Watched(PacedDriver):
        def send_message(self, message: Message) -> None:
            sent.append(message)
            super().send_message(message)

    handlers = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}
    app = make_app(lang="en", guest=True)
    async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
        driver = Watched(app)
        gate = asyncio.Event()
        app.call_later(gate.wait)  # the app is stuck until the gate opens
        handed: list[int] = []

        def type_keys() -> None:
            for number in range(3 * MAX_WAITING_EVENTS):
                driver.process_message(events.Key("x", "x"))
                handed.append(number)

        typist = threading.Thread(target=type_keys)
        typist.start()
        try:
            await wait_until(lambda: any(isinstance(m, InputHeld) for m in sent), "input held")
            keys = [m for m in sent if isinstance(m, events.Key)]
            assert len(keys) == MAX_WAITING_EVENTS and len(handed) == MAX_WAITING_EVENTS - 1
            gate.set()
            await wait_until(lambda: len(handed) == 3 * MAX_WAITING_EVENTS, "every event handed")
            held = "Keys are coming faster than the tutor can handle them"
            await wait_until(
                lambda: any(held in str(n.message) for n in app._notifications), "the held note"
            )
            handled = asyncio.Event()  # after the last key, before the app stops
            driver.send_message(events.Callback(callback=handled.set))
            await wait_until(handled.is_set, "the last key handled")
            await pilot.pause()
        finally:
            gate.set()
            driver.exit_event.set()
            typist.join()
            for number, handler in handlers.items():
                signal.signal(number, handler)
