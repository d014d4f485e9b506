"""A store that cannot be opened, read or written says why as a code (an interface says it
in its language), classified by the number the system gives (errno, SQLite's result code,
PostgreSQL's SQLSTATE), not by the driver's English; the English stays for the command line."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from tutor.progress.migrations import SCHEMA_VERSION
from tutor.progress.opening import open_store
from tutor.progress.sqlite import DB_FILENAME
from tutor.progress.store import StoreError
from tutor.progress.trouble import trouble


def refused(**where: object) -> StoreError:
    with pytest.raises(StoreError) as raised:
        open_store("ada", **where)  # type: ignore[arg-type]
    return raised.value


def test_a_data_dir_that_is_a_file_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("")
    error = refused(data_dir=tmp_path / "data")
    assert (error.code, error.values) == ("not_a_folder", {"location": str(tmp_path / "data")})
    assert str(tmp_path / "data") in str(error)  # the command line's English names it


def test_a_data_dir_that_cannot_be_made_says_so() -> None:
    error = refused(data_dir=Path("/proc/nonexistent"))
    assert error.code == "no_folder" and error.values == {"location": "/proc/nonexistent"}


def test_a_progress_file_that_is_not_a_database_is_damaged(tmp_path: Path) -> None:
    (tmp_path / DB_FILENAME).write_bytes(b"junk " * 1000)
    error = refused(data_dir=tmp_path)
    assert error.code == "broken"
    assert error.values == {"location": str(tmp_path / DB_FILENAME)}
    assert "not a database" in str(error)


def test_a_progress_file_from_a_newer_tutor_says_which_versions(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / DB_FILENAME)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 4}")
    db.close()
    error = refused(data_dir=tmp_path)
    assert error.code == "too_new"
    assert error.values == {
        "version": SCHEMA_VERSION + 4,
        "supported": SCHEMA_VERSION,
        "location": str(tmp_path / DB_FILENAME),
    }


def test_an_unreachable_database_server_is_unreachable() -> None:
    error = refused(database="postgresql://ada@127.0.0.1:1/tutor")
    assert error.code == "unreachable"


def sqlite_raises(tmp_path: Path, *statements: str, uri: str = "") -> sqlite3.Error:
    """What SQLite itself raises for `statements` (real errors, with their codes)."""
    db = sqlite3.connect(uri or tmp_path / "x.sqlite3", uri=bool(uri), timeout=0)
    with pytest.raises(sqlite3.Error) as raised:
        for statement in statements:
            db.execute(statement)
    return raised.value


def test_sqlite_s_own_errors_are_classified_by_their_code(tmp_path: Path) -> None:
    setup = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    setup.execute("CREATE TABLE t (x TEXT)")
    read_only = f"{(tmp_path / 'x.sqlite3').as_uri()}?mode=ro"
    assert trouble(sqlite_raises(tmp_path, "INSERT INTO t VALUES (1)", uri=read_only)) == (
        "read_only"
    )
    full = ("PRAGMA max_page_count = 3", "INSERT INTO t VALUES (zeroblob(100000))")
    assert trouble(sqlite_raises(tmp_path, *full)) == "full"
    setup.execute("BEGIN EXCLUSIVE")
    assert trouble(sqlite_raises(tmp_path, "BEGIN IMMEDIATE")) == "busy"
    setup.execute("ROLLBACK")
    closed = sqlite3.connect(":memory:")
    closed.close()
    with pytest.raises(sqlite3.Error) as raised:
        closed.execute("SELECT 1")
    assert trouble(raised.value) == "closed"


def test_the_system_s_errors_are_classified_by_errno() -> None:
    assert trouble(OSError(errno.ENOSPC, "No space left on device")) == "full"
    assert trouble(OSError(errno.EDQUOT, "Disk quota exceeded")) == "full"
    assert trouble(PermissionError(errno.EACCES, "Permission denied")) == "no_permission"
    assert trouble(OSError(errno.EROFS, "Read-only file system")) == "read_only"
    assert trouble(OSError(errno.EIO, "Input/output error")) == "io"
    # what nobody can name is "other", whatever its words
    assert trouble(sqlite3.Error("database is locked")) == "other"
    assert trouble(RuntimeError("disk is full")) == "other"


def test_a_wrapped_error_is_classified_by_its_cause() -> None:
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as exc:
            raise StoreError("served sessions: No space left on device") from exc
    except StoreError as wrapped:
        assert trouble(wrapped) == "full"
