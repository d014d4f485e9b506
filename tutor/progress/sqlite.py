"""The SQLite backend: one file in the data dir holds every learner (rows keyed by id).

WAL plus a busy timeout lets two sessions of one learner write at once, and lets
`tutor report` read while learners write; every write is its own short transaction, so a
killed session loses nothing that was already written. A guest session keeps the same
tables in memory and writes nothing to disk.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from tutor.progress.migrations import SCHEMA_VERSION, newer_than, too_new
from tutor.progress.sql import Run, SqlProgressStore, T
from tutor.progress.store import default_data_dir

DB_FILENAME = "progress.sqlite3"
BUSY_TIMEOUT_MS = 5000


def _enable_wal(db: sqlite3.Connection) -> None:
    """Switching a new file to WAL needs it alone for a moment and ignores busy_timeout, so
    several first starts at once (a class logging in together) take turns, not fail."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode that waits for a busy file instead of failing."""
    db = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return db


class SqliteStore(SqlProgressStore):
    """One learner's progress in the SQLite file (or in memory for a guest).

    Used from the UI thread only (it may be opened on another: open_in_background); each
    call opens and commits its own transaction.
    """

    LATEST_FIRST: ClassVar[str] = "at DESC, rowid DESC"
    WRITE_ERRORS: ClassVar[tuple[type[Exception], ...]] = (sqlite3.Error,)

    def __init__(self, learner: str, data_dir: Path | None = None, *, guest: bool = False):
        self.learner = learner
        self.guest = guest
        if guest:
            self.path: Path | None = None
            self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            directory = data_dir or default_data_dir()
            directory.mkdir(parents=True, exist_ok=True)
            self.path = directory / DB_FILENAME
            self._db = connect(self.path)
            _enable_wal(self._db)
            self._db.execute("PRAGMA synchronous = NORMAL")
        migrate(self._db, str(self.path))

    @property
    def location(self) -> str | None:
        return None if self.path is None else str(self.path)

    def close(self) -> None:
        self._db.close()

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.execute(sql, params).fetchall()

    def _transaction(self, work: Callable[[Run], T]) -> T:
        with transaction(self._db) as db:
            return work(lambda sql, params=(): db.execute(sql, params).fetchall())


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE takes the write lock up front, so two sessions queue, never clash."""
    if not db.in_transaction:
        db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    if db.in_transaction:
        db.execute("COMMIT")


def migrate(db: sqlite3.Connection, location: str) -> None:
    """Bring the file to SCHEMA_VERSION (PRAGMA user_version counts the steps done)."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version > SCHEMA_VERSION:
        raise too_new(location, version, "TUTOR_DATA_DIR")
    if version == SCHEMA_VERSION:
        return
    with transaction(db):
        # read again under the write lock: another first start may have just done it
        (version,) = db.execute("PRAGMA user_version").fetchone()
        for step in newer_than(version):
            for statement in step.sqlite:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {step.version}")
