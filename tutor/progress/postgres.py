"""The PostgreSQL backend: several `tutor serve` machines share one database.

Each learner's session holds one connection in autocommit mode; a write is one
transaction, committed (and so durable on the server) before the call returns. A
connection that broke (the database restarted, a network blip) is opened again once and
the statement retried, so a learner sees a pause, not an apology.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, ClassVar

import psycopg

from tutor.progress.migrations import SCHEMA_VERSION, newer_than, too_new
from tutor.progress.sql import Run, SqlProgressStore, T
from tutor.progress.store import StoreError, redact

CONNECT_TIMEOUT_SECONDS = 10
# libpq's TCP keepalives: a database machine that lost power or network is noticed after
# 10 s of silence plus 3 unanswered probes 5 s apart, ~25 s, not the kernel's two hours;
# tcp_user_timeout (ms) does the same for a statement sent and never acknowledged, which
# keepalives do not cover (both are ignored on Unix sockets, which cannot lose a peer)
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 25_000,
}
# the server's own connection (tutor serve) sends only short statements: a session's log
# row, a try-lock of its slot. One that takes longer than this is stuck (a lock held by a
# hung transaction, an overloaded database) and is ended, so the learner waiting to be
# admitted is told so instead of waiting for ever
BOUNDED_STATEMENT_MS = 5000
# pg_advisory_xact_lock key that serialises schema changes between first starts
_MIGRATION_LOCK = 0x7475746F72


@cache
def dialect(sql: str) -> str:
    """The `?` placeholders of the shared SQL in psycopg's `%s` style."""
    return re.sub(r"\?", "%s", sql)


def connect(url: str, *, read_only: bool = False, bounded: bool = False) -> psycopg.Connection[Any]:
    """An autocommit connection, or a StoreError that names the (redacted) URL; a
    `bounded` one ends any statement or lock wait after BOUNDED_STATEMENT_MS."""
    settings = ["-c default_transaction_read_only=on"] if read_only else []
    if bounded:
        settings += [
            f"-c statement_timeout={BOUNDED_STATEMENT_MS}",
            f"-c lock_timeout={BOUNDED_STATEMENT_MS}",
        ]
    try:
        return psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            application_name="tutor",
            options=" ".join(settings) or None,
            **KEEPALIVES,
        )
    except psycopg.Error as exc:
        raise StoreError(f"{redact(url)}: cannot open the progress database: {exc}") from exc


def migrate(conn: psycopg.Connection[Any], url: str) -> None:
    """Bring the database to SCHEMA_VERSION, one first start at a time."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        version = row[0] if row and row[0] is not None else 0
        if version > SCHEMA_VERSION:
            raise too_new(redact(url), version, "TUTOR_DATABASE")
        for step in newer_than(version):
            for statement in step.postgres:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (%s)", (step.version,))


class PostgresStore(SqlProgressStore):
    """One learner's progress in a shared PostgreSQL database."""

    LATEST_FIRST: ClassVar[str] = "at DESC, lesson"
    # a database that stays unreachable ends in StoreError from connect()
    WRITE_ERRORS: ClassVar[tuple[type[Exception], ...]] = (psycopg.Error, StoreError)

    def __init__(self, learner: str, url: str, *, bounded: bool = False) -> None:
        self.learner = learner
        self.guest = False
        self._url = url
        self._bounded = bounded
        # run on every new connection after the first, before any statement is retried
        self.on_reconnect: Callable[[psycopg.Connection[Any]], None] | None = None
        self._conn = connect(url, bounded=bounded)
        try:
            migrate(self._conn, url)
        except psycopg.Error as exc:
            self._conn.close()
            raise StoreError(f"{redact(url)}: cannot prepare the progress tables: {exc}") from exc

    @property
    def location(self) -> str | None:
        return redact(self._url)

    def close(self) -> None:
        self._conn.close()

    def _fresh(self) -> psycopg.Connection[Any]:
        if self._conn.closed or self._conn.broken:
            self._conn = connect(self._url, bounded=self._bounded)
            if self.on_reconnect is not None:
                try:
                    self.on_reconnect(self._conn)
                except BaseException:
                    self._conn.close()  # the next statement tries the whole reconnect again
                    raise
        return self._conn

    def _retrying(self, call: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`call` on a live connection; once more on a new one if the old one broke."""
        try:
            return call(self._fresh())
        except psycopg.OperationalError:
            if not self._conn.broken:
                raise
            return call(self._fresh())

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._retrying(lambda conn: conn.execute(dialect(sql), params).fetchall())

    def _transaction(self, work: Callable[[Run], T]) -> T:
        def commit(conn: psycopg.Connection[Any]) -> T:
            def run(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
                cursor = conn.execute(dialect(sql), params)
                return cursor.fetchall() if cursor.description is not None else []

            with conn.transaction():
                return work(run)

        return self._retrying(commit)
