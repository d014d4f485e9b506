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

from textual.widgets import TextArea

from tests.tui.conftest import LEARNER, LESSON, settle, tutor_on_pty
from tests.tui.test_quiz_summary import summary_page
from tutor.progress.sqlite import DB_FILENAME
from tutor.tui.app import TutorApp
from tutor.tui.widgets.summary import SummaryEditor

COLUMNS, ROWS = 100, 40


async def tabs_to_first_section(make_app: Callable[..., TutorApp]) -> tuple[int, str]:
    """How many Tab presses take focus from the page to the summary's first section."""
    app = make_app(start_lesson=LESSON, start_page=summary_page(), guest=True)
    async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        section = editor.summary.sections[0].id
        target = editor.query_one(f"#section-{section}", TextArea)
        for presses in range(1, 30):
            await pilot.press("tab")
            if app.focused is target:
                return presses, section
    raise AssertionError("Tab never reached the summary")


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


async def test_sigkill_keeps_what_was_typed_a_second_before(
    make_app: Callable[..., TutorApp], tmp_path: Path
) -> None:
    presses, section = await tabs_to_first_section(make_app)
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
        os.write(leader, b"\t" * presses)
        wait(0.5)
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
    assert saved[0][0].startswith(early)
