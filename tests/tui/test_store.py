"""The progress store: what a learner did is there after a restart, for them alone."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tutor.tui.store import (
    DB_FILENAME,
    SCHEMA_VERSION,
    ProgressStore,
    StoreError,
    open_in_background,
)


def test_visits_positions_and_resume_survive_reopening(tmp_path: Path) -> None:
    store = ProgressStore("ada", tmp_path)
    store.visit_page("embedding", 1)
    store.visit_page("embedding", 3)
    store.visit_page("other", 2)
    store.visit_page("embedding", 3)
    store.close()

    reopened = ProgressStore("ada", tmp_path)
    assert reopened.visited_pages("embedding") == {1, 3}
    assert reopened.lesson_page("embedding") == 3
    assert reopened.lesson_page("missing") is None
    position = reopened.last_position()
    assert (position.lesson, position.page) == ("embedding", 3)


def test_learners_are_kept_apart(tmp_path: Path) -> None:
    ProgressStore("ada", tmp_path).visit_page("embedding", 5)
    bob = ProgressStore("bob", tmp_path)
    assert bob.visited_pages("embedding") == set()
    assert bob.last_position() is None


def test_quiz_attempts_keep_every_answer_in_order(tmp_path: Path) -> None:
    store = ProgressStore("ada", tmp_path)
    store.record_attempt("embedding", "q1", 2, False)
    store.record_attempt("embedding", "q1", [0, 3], True)
    store.record_attempt("embedding", "q2", "248,320", True)
    attempts = ProgressStore("ada", tmp_path).attempts("embedding", "q1")
    assert [(a.answer, a.correct) for a in attempts] == [(2, False), ([0, 3], True)]
    last = store.last_attempt("embedding", "q2")
    assert (last.answer, last.correct) == ("248,320", True)


def test_summary_sections_and_submission(tmp_path: Path) -> None:
    store = ProgressStore("ada", tmp_path)
    store.save_summary("embedding", "understanding", "ID 是行号")
    store.save_summary("embedding", "understanding", "ID 只是行号")
    assert not store.summary_submitted("embedding")
    store.submit_summary("embedding", {"understanding": "ID 只是行号", "models": "查表"})
    reopened = ProgressStore("ada", tmp_path)
    assert reopened.summary("embedding") == {"understanding": "ID 只是行号", "models": "查表"}
    assert reopened.summary_submitted("embedding")


def test_self_checks_are_kept_per_item_and_a_first_version_file_gains_them(
    tmp_path: Path,
) -> None:
    db = sqlite3.connect(tmp_path / DB_FILENAME)  # a progress file from before self-checks
    db.executescript(
        "CREATE TABLE summaries (learner TEXT NOT NULL, lesson TEXT NOT NULL, "
        "section TEXT NOT NULL, text TEXT NOT NULL, updated_at REAL NOT NULL, "
        "PRIMARY KEY (learner, lesson, section));"
        "INSERT INTO summaries VALUES ('ada', 'embedding', 'understanding', '行号', 0);"
        "PRAGMA user_version = 1;"
    )
    db.close()
    store = ProgressStore("ada", tmp_path)
    assert store.summary("embedding") == {"understanding": "行号"}
    assert store.self_check("embedding", "summary") == []
    store.save_self_check("embedding", "summary", ["id-is-row"])
    store.save_self_check("embedding", "summary", ["id-is-row", "context-free"])
    store.save_self_check("embedding", "explain-embedding", [])
    reopened = ProgressStore("ada", tmp_path)
    assert reopened.self_check("embedding", "summary") == ["id-is-row", "context-free"]
    assert reopened.self_check("embedding", "explain-embedding") == []
    assert ProgressStore("bob", tmp_path).self_check("embedding", "summary") == []


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


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tutor.tui.store import ProgressStore

    store = ProgressStore("ada", Path(sys.argv[1]))
    for n in range(200):
        store.visit_page("embedding", n % 16 + 1)
        store.record_attempt("embedding", f"q{sys.argv[2]}", n, n % 2 == 0)
        store.save_summary("embedding", f"s{sys.argv[2]}", "x" * n)
    """
)


def test_two_sessions_of_one_learner_write_at_once(tmp_path: Path) -> None:
    """Two processes hammer the same learner's rows; every write lands, the file stays sound."""
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(n)]) for n in (1, 2)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    store = ProgressStore("ada", tmp_path)
    assert len(store.attempts("embedding", "q1")) == 200
    assert len(store.attempts("embedding", "q2")) == 200
    assert store.summary("embedding") == {"s1": "x" * 199, "s2": "x" * 199}
    db = sqlite3.connect(tmp_path / DB_FILENAME)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _open_store_at(args: tuple[str, str, object]) -> str:
    directory, learner, barrier = args
    barrier.wait()
    store = ProgressStore(learner, Path(directory))
    store.close()
    return learner


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
