"""A killed session loses at most the last second of typing.

The real `tutor` runs on a pseudo-terminal, the learner types into the summary, and the
process gets SIGKILL: no exit handler runs, so only what was already committed survives.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import LEARNER, LESSON, tutor_on_pty
from tests.tui.test_quiz_summary import summary_page
from tutor.progress.sqlite import DB_FILENAME

COLUMNS, ROWS = 100, 40


def rows_for(db_path: Path, sql: str, *args: object) -> list[tuple]:
    if not db_path.exists():
        return []
    db = sqlite3.connect(db_path, timeout=5)
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # tables not created yet
        return []
    finally:
        db.close()


SECTION_TEXT = "SELECT section, text FROM summaries WHERE learner = ? AND lesson = ?"
PROBE = "k"  # a letter no key of the summary page is bound to


@pytest.mark.pty
def test_sigkill_keeps_what_was_typed_a_second_before(tmp_path: Path) -> None:
    db_path = tmp_path / DB_FILENAME
    command = ["--learner", LEARNER, "lesson", LESSON, "--page", str(summary_page())]
    leader, child = tutor_on_pty(tmp_path, COLUMNS, ROWS, *command)
    os.set_blocking(leader, False)

    def drain() -> None:
        """Keep the terminal's buffer empty so the app never blocks on output."""
        try:
            while os.read(leader, 65536):
                pass
        except (BlockingIOError, OSError):
            pass

    def wait(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            drain()
            time.sleep(0.02)

    try:
        deadline = time.monotonic() + 60
        visited = "SELECT 1 FROM page_visits WHERE learner = ?"
        while not rows_for(db_path, visited, LEARNER):
            assert child.poll() is None, "tutor exited before showing the page"
            assert time.monotonic() < deadline, "the page never opened"
            wait(0.1)
        wait(1.0)  # the page is mounted; let it finish laying out
        section = _tab_to_a_summary_section(leader, db_path, wait)
        early = "kept-before-the-kill"
        for char in early:
            os.write(leader, char.encode())
            wait(0.03)
        wait(1.0)
        for char in "lost-maybe":
            os.write(leader, char.encode())
            wait(0.01)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
        os.close(leader)

    saved = rows_for(
        db_path,
        "SELECT text FROM summaries WHERE learner = ? AND lesson = ? AND section = ?",
        LEARNER,
        LESSON,
        section,
    )
    assert saved, "nothing typed was saved"
    assert saved[0][0].startswith(PROBE + early)


def _tab_to_a_summary_section(leader: int, db_path: Path, wait: Callable[[float], None]) -> str:
    """Press Tab one key at a time, as a person does, each followed by a probe letter,
    until the letter is saved in a summary section: the section the focus reached, read
    from the store rather than counted in another app (a count taken headless did not
    always reach the same field on a real terminal)."""
    for _ in range(30):
        os.write(leader, b"\t")
        wait(0.3)
        os.write(leader, PROBE.encode())
        deadline = time.monotonic() + 1.5  # the editor saves within half a second
        while time.monotonic() < deadline:
            typed = rows_for(db_path, SECTION_TEXT, LEARNER, LESSON)
            if typed:
                assert typed[0][1] == PROBE, typed
                return typed[0][0]
            wait(0.1)
    raise AssertionError("Tab never reached a summary section")
