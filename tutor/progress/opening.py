"""Opening a learner's progress store on the backend asked for: SQLite by default (one file
in the data folder), PostgreSQL for a `postgresql://` URL. Apart from the store's types
(store.py), so that the backends, which use those types, are not imported by them."""

from __future__ import annotations

import sqlite3
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

from tutor.progress.store import (
    ProgressStore,
    StoreError,
    check_database_url,
    default_data_dir,
    redact,
)
from tutor.progress.trouble import opening_trouble, trouble


def open_store(
    learner: str,
    data_dir: Path | None = None,
    *,
    database: str | None = None,
    guest: bool = False,
    bounded: bool = False,
) -> ProgressStore:
    """The learner's store on the backend the arguments name (see the module docstring);
    one that cannot be opened raises StoreError with a code saying why (`cannot_open`)."""
    if guest or database is None:
        from tutor.progress.sqlite import DB_FILENAME, SqliteStore

        folder = data_dir or default_data_dir()
        location = str(folder / DB_FILENAME)
        try:
            return SqliteStore(learner, folder, guest=guest)
        except (StoreError, sqlite3.Error, OSError) as exc:
            where = str(folder) if trouble(exc) in ("not_a_folder", "no_folder") else location
            raise cannot_open(exc, where, folder) from exc
    from tutor.progress.postgres import PostgresStore

    try:
        return PostgresStore(learner, check_database_url(database), bounded=bounded)
    except StoreError as exc:
        raise cannot_open(exc, redact(database)) from exc


def cannot_open(error: Exception, location: str, folder: Path | None = None) -> StoreError:
    """`error` (from opening the store at `location`) as a StoreError with its code."""
    if isinstance(error, StoreError) and error.code:
        error.values.setdefault("location", location)
        return error
    code = opening_trouble(error, location, folder)
    message = str(error) if isinstance(error, StoreError) else f"{location}: {error}"
    if isinstance(error, OSError) and error.strerror:
        message = f"{location}: cannot open the progress store: {error.strerror}"
    return StoreError(message, code, location=location)


def open_in_background(
    learner: str,
    data_dir: Path | None = None,
    *,
    database: str | None = None,
    guest: bool = False,
) -> Future[ProgressStore]:
    """The store, opened on a thread while the caller goes on (imports Textual).

    Why: a first start creates the file and switches it to WAL, which waits on the disk
    (~7 ms); that wait releases the GIL, so it overlaps the import (~160 ms of Python) and
    the learner's first screen comes sooner. `result()` raises what opening raised. A bare
    thread, not a ThreadPoolExecutor: that would import its queue machinery on every start.
    """
    opened: Future[ProgressStore] = Future()

    def open_it() -> None:
        try:
            opened.set_result(open_store(learner, data_dir, database=database, guest=guest))
        except BaseException as exc:  # handed to the caller's result()
            opened.set_exception(exc)

    if "textual.app" in sys.modules:  # nothing left to import (a session forked from its
        open_it()  # template): a thread would only cost CPU
        return opened
    threading.Thread(target=open_it, name="open-progress", daemon=True).start()
    return opened
