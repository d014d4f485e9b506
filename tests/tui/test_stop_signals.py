"""A tutor told to stop (SIGTERM from a system shutting down or `tutor serve` ending a
session; SIGHUP from a closed window or connection) keeps what was typed up to that moment:
the learner reads that progress is saved, so the last keys must be in the store too, not
only those the draft timer (SAVE_DELAY) had saved."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyte
import pytest

from tests.tui.conftest import LEARNER, LESSON, tutor_on_pty
from tests.tui.test_quiz_summary import summary_page
from tests.waits import block_until
from tutor.progress.sqlite import SqliteStore
from tutor.tui.app import TutorApp

# 46 characters, typed one at a time
TYPED = "an id is a row number; the row is the embedding"[:46]
# the stop follows the last key at once: keys still in the terminal are read before the end
STOP_WITHIN_S = 0.0


def saved_summary(data_dir: Path) -> str:
    store = SqliteStore(LEARNER, data_dir)
    try:
        return "".join(store.summary(LESSON).values())
    finally:
        store.close()


class PtyScreen:
    """The tutor's terminal drawn on a pyte screen as the tutor writes it."""

    def __init__(self, leader: int, cols: int, rows: int) -> None:
        self.leader = leader
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.leader, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._stream.feed(data)

    @property
    def text(self) -> str:
        with self._lock:
            return "\n".join(self.screen.display)

    def wait_for(self, words: str, child) -> None:  # type: ignore[no-untyped-def]
        """Until `words` are on screen; fails if the tutor ends or after a minute."""
        block_until(lambda: words in self.text, lambda: f"{words!r} on screen:\n{self.text}", child)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGHUP], ids=["term", "hangup"])
def test_keys_typed_just_before_a_stop_are_saved(tmp_path: Path, how: signal.Signals) -> None:
    args = ("--lang", "en", "--learner", LEARNER, "lesson", LESSON, "--page", str(summary_page()))
    leader, child = tutor_on_pty(tmp_path, 100, 40, *args)
    try:
        screen = PtyScreen(leader, 100, 40)
        screen.wait_for("Your summary", child)
        os.write(leader, b"\t")  # into the summary's first section
        screen.wait_for("Leave the field", child)
        for character in TYPED:
            os.write(leader, character.encode())
            time.sleep(0.005)
        time.sleep(STOP_WITHIN_S)
        os.kill(child.pid, how)
        status = child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    assert saved_summary(tmp_path) == TYPED
    assert status == 128 + how  # stopped, as a shell reports a signal
    assert not (tmp_path / "crashes").exists()


async def test_a_tutor_with_nothing_in_flight_stops_after_one_round(
    make_app: Callable[..., TutorApp],
) -> None:
    """The stop waits for the widgets' queues until a round finds them all empty, not
    always _MESSAGE_HOPS rounds: a session whose learner typed nothing (most hang-ups
    on the course map) spent 2.4 ms of a served session's CPU on six rounds."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rounds: list[object] = []
        screen = app.screen
        asked = screen.call_later

        def counted(callback: Callable[..., object], *args: object, **kwargs: object) -> bool:
            rounds.append(callback)
            return asked(callback, *args, **kwargs)

        screen.call_later = counted  # type: ignore[method-assign]
        await app._exit_once_handled(128 + signal.SIGHUP)
        screen.call_later = asked  # type: ignore[method-assign]
        await pilot.pause()
    assert len(rounds) == 1
    assert app.return_code == 128 + signal.SIGHUP
