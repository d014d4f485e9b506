"""Why a progress store cannot be opened, read or written, as a code an interface says in
its language (tutor.tui's strings `store.why.<code>`).

Classified by the number the system gives: the errno of an OSError, SQLite's result code,
PostgreSQL's SQLSTATE; never by the words of a message, which are English and change
between versions. The one exception is a closed SQLite connection, which Python reports
with no code at all. What cannot be named is "other", and its message is the detail.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from tutor.core.refusal import Coded

# every code `trouble` and `cannot_open` give (and StoreError's own: too_new, limits)
TROUBLES = (
    "no_permission",
    "read_only",
    "full",
    "busy",
    "broken",
    "io",
    "cannot_open",
    "not_a_folder",
    "no_folder",
    "closed",
    "unreachable",
    "login_refused",
    "no_database",
    "too_new",
    "no_progress_yet",
    "other",
)

_ERRNO = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "full",
    errno.EFBIG: "full",
    errno.EACCES: "no_permission",
    errno.EPERM: "no_permission",
    errno.EROFS: "read_only",
    errno.EIO: "io",
    errno.ENOTDIR: "not_a_folder",
    errno.EEXIST: "not_a_folder",  # mkdir(exist_ok=True) of a path that is a file
    errno.EISDIR: "broken",  # the progress file's name is a folder
    errno.ENOENT: "no_folder",
}
# SQLite's primary result codes (https://sqlite.org/rescode.html)
_SQLITE = {
    3: "no_permission",  # SQLITE_PERM
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
    8: "read_only",  # SQLITE_READONLY
    10: "io",  # SQLITE_IOERR
    11: "broken",  # SQLITE_CORRUPT
    13: "full",  # SQLITE_FULL
    14: "cannot_open",  # SQLITE_CANTOPEN
    26: "broken",  # SQLITE_NOTADB
}
# PostgreSQL's SQLSTATE: exact codes first, then their class (the first two characters)
_SQLSTATE = {
    "3D000": "no_database",  # invalid_catalog_name
    "42501": "no_permission",  # insufficient_privilege
    "25006": "read_only",  # read_only_sql_transaction
    "53100": "full",  # disk_full
    "53200": "full",  # out_of_memory
    "55P03": "busy",  # lock_not_available
    "40P01": "busy",  # deadlock_detected
    "57P03": "unreachable",  # cannot_connect_now (starting up)
}
_SQLSTATE_CLASS = {"08": "unreachable", "28": "login_refused", "57": "unreachable"}


def _one(error: BaseException) -> str | None:
    """The code of this error alone, or None when it names nothing we know."""
    if isinstance(error, Coded) and error.code:
        return error.code
    if isinstance(error, OSError):
        return _ERRNO.get(error.errno or 0)
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        if code is not None:
            return _SQLITE.get(code & 0xFF)
        # Python's own check, before SQLite is asked: the only one a store's calls meet
        return "closed" if isinstance(error, sqlite3.ProgrammingError) else None
    if type(error).__module__.startswith("psycopg"):
        state = getattr(error, "sqlstate", None)
        if state:
            return _SQLSTATE.get(state) or _SQLSTATE_CLASS.get(state[:2])
        # no SQLSTATE: the server never answered (refused, no route, timed out), or the
        # connection was closed on this side (InterfaceError)
        return "closed" if type(error).__name__ == "InterfaceError" else "unreachable"
    return None


def trouble(error: BaseException) -> str:
    """`error`'s code (one of TROUBLES), from it or from what it was raised from."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of causes is short; a cycle is not followed
        if seen is None:
            break
        code = _one(seen)
        if code is not None:
            return code
        seen = seen.__cause__ or seen.__context__
    return "other"


def detail(error: BaseException) -> str:
    """The system's own words for `error` (English), without the file name an OSError adds."""
    cause = error.__cause__ or error
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return str(cause)


def opening_trouble(error: BaseException, location: str, folder: Path | None = None) -> str:
    """The code for a store at `location` that could not be opened: SQLite's "cannot open"
    is told apart by looking at the folder (not writable, or not a folder)."""
    code = trouble(error)
    if code == "cannot_open" and folder is not None:
        if folder.exists() and not folder.is_dir():
            return "not_a_folder"
        if not os.access(folder, os.W_OK | os.X_OK):
            return "no_permission"
        file = Path(location)
        if file.exists() and not os.access(file, os.R_OK | os.W_OK):
            return "no_permission"
    return code
