"""The SQLite backend: one WAL file in the data dir, versioned, shared by first starts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tutor.progress.migrations import SCHEMA_VERSION
from tutor.progress.opening import open_in_background
from tutor.progress.sqlite import DB_FILENAME
from tutor.progress.sqlite import SqliteStore as ProgressStore
from tutor.progress.store import StoreError


def test_database_is_wal_with_a_schema_version(tmp_path: Path) -> None:
    ProgressStore("ada", tmp_path).visit_page("embedding", 1)
    db = sqlite3.connect(tmp_path / DB_FILENAME)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_newer_schema_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / DB_FILENAME)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this tutor"):
        ProgressStore("ada", tmp_path)


def test_guest_store_writes_nothing(tmp_path: Path) -> None:
    guest = ProgressStore("guest", tmp_path, guest=True)
    guest.visit_page("embedding", 2)
    guest.save_summary("embedding", "understanding", "hello")
    assert guest.last_position().page == 2
    assert guest.path is None
    assert list(tmp_path.iterdir()) == []


def test_data_dir_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_DATA_DIR", str(tmp_path / "elsewhere"))
    store = ProgressStore("ada")
    assert store.path == tmp_path / "elsewhere" / DB_FILENAME


def _open_store_at(args: tuple[str, str, object]) -> str:
    directory, learner, barrier = args
    barrier.wait()
    store = ProgressStore(learner, Path(directory))
    store.close()
    return learner


@pytest.mark.slow  # five rounds of six spawned Pythons
def test_many_first_starts_at_once_on_a_fresh_data_dir(tmp_path):
    """A class logging in together: every process creates or joins the new database."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    for attempt in range(5):
        directory = tmp_path / f"fresh{attempt}"
        with ctx.Manager() as manager:
            barrier = manager.Barrier(6)
            with ctx.Pool(6) as pool:
                opened = pool.map(
                    _open_store_at, [(str(directory), f"l{i}", barrier) for i in range(6)]
                )
        assert sorted(opened) == [f"l{i}" for i in range(6)]
        mode = sqlite3.connect(directory / "progress.sqlite3").execute("PRAGMA journal_mode")
        assert mode.fetchone()[0] == "wal"


def test_a_store_opened_in_the_background_is_used_from_this_thread(tmp_path: Path) -> None:
    opening = open_in_background("ada", tmp_path)
    store = opening.result(timeout=30)
    store.visit_page("embedding", 4)  # written from the thread that asks, not the opener
    assert ProgressStore("ada", tmp_path).lesson_page("embedding") == 4
    guest = open_in_background("guest", tmp_path, guest=True).result(timeout=30)
    guest.visit_page("embedding", 2)
    assert guest.last_position().page == 2


def test_opening_in_the_background_raises_what_opening_raises(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / DB_FILENAME)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this tutor"):
        open_in_background("ada", tmp_path).result(timeout=30)


def test_a_file_from_the_first_schema_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    """A progress file written before self-checks existed (v1) opens, gains the new
    tables and still has every learner's progress."""
    from tutor.progress.migrations import MIGRATIONS

    db = sqlite3.connect(tmp_path / DB_FILENAME)
    for statement in MIGRATIONS[0].sqlite:
        db.execute(statement)
    db.execute("INSERT INTO positions VALUES ('ada', 'embedding', 7, 1.0)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()

    store = ProgressStore("ada", tmp_path)
    assert store.lesson_page("embedding") == 7
    store.save_self_check("embedding", "summary", ["id-is-row"])
    assert store.self_check("embedding", "summary") == ["id-is-row"]
    version = sqlite3.connect(tmp_path / DB_FILENAME).execute("PRAGMA user_version")
    assert version.fetchone()[0] == SCHEMA_VERSION


def test_a_file_from_before_quiz_drafts_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    """A progress file of schema v3 (before unsubmitted answers were kept) opens, gains
    the drafts table and still has its attempts; drafts are then kept."""
    from tutor.progress.migrations import MIGRATIONS

    db = sqlite3.connect(tmp_path / DB_FILENAME)
    for step in MIGRATIONS[:3]:
        for statement in step.sqlite:
            db.execute(statement)
    db.execute(
        "INSERT INTO quiz_attempts (learner, lesson, question, answer, correct, at) "
        "VALUES ('ada', 'embedding', 'renumber', '2', 1, 1.0)"
    )
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()

    store = ProgressStore("ada", tmp_path)
    assert [a.answer for a in store.attempts("embedding", "renumber")] == [2]
    store.save_draft("embedding", "onehot-distance", "√2")
    assert store.drafts("embedding") == {"onehot-distance": "√2"}
    version = sqlite3.connect(tmp_path / DB_FILENAME).execute("PRAGMA user_version")
    assert version.fetchone()[0] == SCHEMA_VERSION


def test_a_file_from_before_teacher_marks_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    """A progress file of schema v4 (before the teacher could mark answers) opens, gains
    the marks table and keeps its summaries; marks are then kept."""
    from tutor.progress.marks import TeacherMarks
    from tutor.progress.migrations import MIGRATIONS

    db = sqlite3.connect(tmp_path / DB_FILENAME)
    for step in MIGRATIONS[:4]:
        for statement in step.sqlite:
            db.execute(statement)
    db.execute("INSERT INTO summaries VALUES ('ada', 'embedding', 'understanding', '行号', 1.0)")
    db.execute("PRAGMA user_version = 4")
    db.commit()
    db.close()

    store = ProgressStore("ada", tmp_path)
    assert store.summary("embedding") == {"understanding": "行号"}
    store.save_teacher_marks("ada", "embedding", "summary", TeacherMarks(comment="好"))
    assert store.teacher_marks("embedding")["summary"].comment == "好"
    version = sqlite3.connect(tmp_path / DB_FILENAME).execute("PRAGMA user_version")
    assert version.fetchone()[0] == SCHEMA_VERSION == 5
