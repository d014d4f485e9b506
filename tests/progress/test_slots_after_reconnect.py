"""The per-key cap across servers survives a server's database connection breaking.

A session's slot is a session-level advisory lock on its server's connection, so the
lock dies with the connection. When the server opens a new one it takes every slot it
still holds again, before anything else, so another server cannot give the same slot
to a second session.
"""

from __future__ import annotations

import logging

import pytest

from tests.postgres import PostgresServer, scalar
from tutor.progress.sessions import ServedSessions


def end_backend(served: ServedSessions, url: str) -> None:
    """The database ends this server's connection (a restart, an admin, a network cut),
    and the locks it held are free when this returns."""
    pid = served._store._conn.info.backend_pid  # type: ignore[attr-defined]
    # with a timeout, pg_terminate_backend waits until the backend has exited
    assert scalar(url, "SELECT pg_terminate_backend(%s, 60000)", (pid,)) is True


def test_a_reconnected_server_takes_its_slots_back_first(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    a, b = ServedSessions(database=url), ServedSessions(database=url)
    try:
        held = a.start("ada", guest=False, cap=1)
        assert held is not None and held.slot == 0
        assert b.start("ada", guest=False, cap=1) is None
        end_backend(a, url)
        other = a.start("bob", guest=False, cap=1)  # any statement: A reconnects
        assert other is not None and other.slot == 0
        assert b.start("ada", guest=False, cap=1) is None  # ada's slot is still A's
        a.end(held)
        assert b.start("ada", guest=False, cap=1) is not None
    finally:
        a.close()
        b.close()


def test_a_slot_taken_meanwhile_is_logged_and_its_session_stays_counted(
    postgres_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = postgres_server.new_database()
    a, b = ServedSessions(database=url), ServedSessions(database=url)
    try:
        held = a.start("ada", guest=False, cap=1)
        assert held is not None
        end_backend(a, url)
        assert b.start("ada", guest=False, cap=1) is not None  # free while A was away
        with caplog.at_level(logging.WARNING, logger="tutor.serve"):
            assert a.start("bob", guest=False, cap=1) is not None  # A reconnects
        (record,) = [r for r in caplog.records if "learner=ada" in r.getMessage()]
        assert "another server gave slot 0" in record.getMessage()
        assert a.start("ada", guest=False, cap=1) is None  # A still counts its own
        a.end(held)  # ends cleanly; it never unlocks B's slot
        assert a.start("ada", guest=False, cap=1) is None
    finally:
        a.close()
        b.close()
