"""The PostgreSQL backend's own cases: versioned schema, clear errors, a broken
connection survived, a class of first starts at once."""

from __future__ import annotations

import threading

import psycopg
import pytest

from tests.postgres import PostgresServer
from tutor.progress.migrations import SCHEMA_VERSION
from tutor.progress.opening import open_store
from tutor.progress.postgres import PostgresStore, connect
from tutor.progress.store import StoreError


def test_the_schema_version_is_recorded_and_a_newer_one_refused(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    PostgresStore("ada", url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        versions = [v for (v,) in conn.execute("SELECT version FROM schema_version ORDER BY 1")]
        assert versions == list(range(1, SCHEMA_VERSION + 1))
        conn.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match=r"newer than this tutor.*TUTOR_DATABASE"):
        PostgresStore("ada", url)


def test_an_unreachable_database_is_a_clear_error_without_the_password(
    postgres_server: PostgresServer,
) -> None:
    url = f"postgresql://tutor:hunter2@/nosuchdb?host={postgres_server.socket_dir}"
    with pytest.raises(StoreError) as caught:
        open_store("ada", database=url)
    message = str(caught.value)
    assert "cannot open the progress database" in message
    assert "nosuchdb" in message
    assert "hunter2" not in message


def test_a_url_that_is_not_postgresql_is_refused() -> None:
    with pytest.raises(StoreError, match="postgresql://user@host/dbname"):
        open_store("ada", database="mysql://tutor:secret@db/tutor")


def test_a_connection_the_server_ended_is_opened_again(postgres_server: PostgresServer) -> None:
    url = postgres_server.new_database()
    store = PostgresStore("ada", url)
    store.visit_page("embedding", 2)
    with psycopg.connect(url, autocommit=True) as admin:
        ended = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'tutor' AND pid <> pg_backend_pid()"
        ).fetchall()
    assert ended == [(True,)]
    store.visit_page("embedding", 3)  # a write first: it must not be lost
    assert store.visited_pages("embedding") == {2, 3}
    store.close()


def test_many_first_starts_at_once_on_a_new_database(postgres_server: PostgresServer) -> None:
    url = postgres_server.new_database()
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def first_start(n: int) -> None:
        barrier.wait(timeout=60)
        try:
            store = PostgresStore(f"l{n}", url)
            store.visit_page("embedding", n)
            store.close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=first_start, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM positions").fetchone()[0] == 8


def test_connections_notice_a_dead_peer_and_the_server_s_own_ends_stuck_statements(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    with connect(url, bounded=True) as bounded, connect(url) as learner:
        for conn in (bounded, learner):
            given = conn.info.get_parameters()
            assert (given["keepalives"], given["keepalives_idle"]) == ("1", "10")
            assert (given["keepalives_interval"], given["keepalives_count"]) == ("5", "3")
            assert given["tcp_user_timeout"] == "25000"
        assert bounded.execute("SHOW statement_timeout").fetchone() == ("5s",)
        assert bounded.execute("SHOW lock_timeout").fetchone() == ("5s",)
        assert learner.execute("SHOW statement_timeout").fetchone() == ("0",)


def test_a_database_from_before_quiz_drafts_is_migrated_and_keeps_its_rows(
    postgres_server: PostgresServer,
) -> None:
    """A database at schema v3 (before unsubmitted answers were kept) gains the drafts
    table on the next start and keeps its attempts."""
    from tutor.progress.migrations import MIGRATIONS

    url = postgres_server.new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for step in MIGRATIONS[:3]:
            for statement in step.postgres:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (%s)", (step.version,))
        conn.execute(
            "INSERT INTO quiz_attempts (learner, lesson, question, answer, correct, at) "
            "VALUES ('ada', 'embedding', 'renumber', '2', 1, 1.0)"
        )
    store = PostgresStore("ada", url)
    assert [a.answer for a in store.attempts("embedding", "renumber")] == [2]
    store.save_draft("embedding", "onehot-distance", "√2")
    assert store.drafts("embedding") == {"onehot-distance": "√2"}
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        versions = [v for (v,) in conn.execute("SELECT version FROM schema_version ORDER BY 1")]
    assert versions == list(range(1, SCHEMA_VERSION + 1))


def test_a_database_from_before_teacher_marks_is_migrated_and_keeps_its_rows(
    postgres_server: PostgresServer,
) -> None:
    """A database at schema v4 gains the teacher's marks on the next start and keeps its
    summaries; marks are then kept."""
    from tutor.progress.marks import TeacherMarks
    from tutor.progress.migrations import MIGRATIONS

    url = postgres_server.new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for step in MIGRATIONS[:4]:
            for statement in step.postgres:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (%s)", (step.version,))
        conn.execute(
            "INSERT INTO summaries VALUES ('ada', 'embedding', 'understanding', '行号', 1.0)"
        )
    store = PostgresStore("ada", url)
    assert store.summary("embedding") == {"understanding": "行号"}
    store.save_teacher_marks("ada", "embedding", "summary", TeacherMarks(comment="好"))
    assert store.teacher_marks("embedding")["summary"].comment == "好"
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        versions = [v for (v,) in conn.execute("SELECT version FROM schema_version ORDER BY 1")]
    assert versions == [1, 2, 3, 4, 5] and SCHEMA_VERSION == 5
