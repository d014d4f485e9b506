"""One learner cannot fill the shared progress database: texts are capped (and the field
shows the count), an unchanged summary is not stored again, repeated presses are capped."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import TextArea

from tests.tui.conftest import LEARNER, LESSON, app_for
from tests.tui.test_quiz_summary import summary_page
from tests.waits import settle
from tutor.progress.sqlite import DB_FILENAME, SqliteStore
from tutor.progress.store import MAX_ATTEMPTS_PER_QUESTION, MAX_TEXT_CHARS, StoreLimitError
from tutor.tui.widgets.summary import SummaryEditor

MEGABYTE_OF_TEXT = "embedding " * 100_000


def database_bytes(data_dir: Path) -> int:
    db = sqlite3.connect(data_dir / DB_FILENAME)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return (data_dir / DB_FILENAME).stat().st_size


def test_a_megabyte_summary_submitted_five_times_is_stored_once_and_capped(
    tmp_path: Path,
) -> None:
    store = SqliteStore(LEARNER, tmp_path)
    empty = database_bytes(tmp_path)
    for _ in range(5):
        store.save_summary(LESSON, "what", MEGABYTE_OF_TEXT)
        store.submit_summary(LESSON, {"what": MEGABYTE_OF_TEXT, "why": MEGABYTE_OF_TEXT})
    assert store.summary(LESSON) == {
        "what": MEGABYTE_OF_TEXT[:MAX_TEXT_CHARS],
        "why": MEGABYTE_OF_TEXT[:MAX_TEXT_CHARS],
    }
    rows = store._db.execute("SELECT count(*) FROM summary_submissions").fetchone()
    assert rows == (1,)
    store.submit_summary(LESSON, {"what": "changed", "why": ""})
    assert store._db.execute("SELECT count(*) FROM summary_submissions").fetchone() == (2,)
    store.close()
    assert database_bytes(tmp_path) - empty < 64 * 1024


def test_attempts_per_question_are_capped_with_a_sentence(tmp_path: Path) -> None:
    store = SqliteStore(LEARNER, tmp_path)
    for _ in range(MAX_ATTEMPTS_PER_QUESTION):
        store.record_attempt(LESSON, "q1", MEGABYTE_OF_TEXT, False)
    with pytest.raises(StoreLimitError, match="already has 500 saved attempts"):
        store.record_attempt(LESSON, "q1", "once more", False)
    attempts = store.attempts(LESSON, "q1")
    assert len(attempts) == MAX_ATTEMPTS_PER_QUESTION
    assert {len(a.answer) for a in attempts} == {MAX_TEXT_CHARS}
    with pytest.raises(StoreLimitError):  # still full: refused again, the store unharmed
        store.record_attempt(LESSON, "q1", "and again", True)
    store.record_attempt(LESSON, "q2", "another question", True)
    assert len(store.attempts(LESSON, "q2")) == 1
    store.close()


@pytest.mark.asyncio
async def test_the_summary_field_stops_at_its_limit_and_shows_the_count(
    tmp_path: Path,
) -> None:
    app = app_for(tmp_path, start_lesson=LESSON, start_page=summary_page(), lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(SummaryEditor)
        area = editor.query_one(f"#section-{editor.summary.sections[0].id}", TextArea)
        area.focus()
        await pilot.press(*"abc")
        await pilot.pause()
        assert str(area.border_subtitle) == f"3 / {MAX_TEXT_CHARS}"
        app.copy_to_clipboard(MEGABYTE_OF_TEXT)  # then ctrl+v, as a learner pastes
        await pilot.press("ctrl+v")
        await pilot.pause()
        assert len(area.text) == MAX_TEXT_CHARS and area.text.startswith("abcembedding")
        assert str(area.border_subtitle) == f"{MAX_TEXT_CHARS} / {MAX_TEXT_CHARS}"
        await pilot.press(*"more")
        assert len(area.text) == MAX_TEXT_CHARS
