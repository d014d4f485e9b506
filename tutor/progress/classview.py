"""Every learner's progress at once, read-only, for the teacher's report.

Reading never blocks or slows learners: SQLite is opened read-only (WAL lets readers and
the writers of live sessions proceed side by side) and PostgreSQL in a read-only
transaction. Everything is read inside one transaction, so the figures agree with each
other even while learners write.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutor.progress.marks import TeacherMarks
from tutor.progress.migrations import SCHEMA_VERSION, too_new
from tutor.progress.sql import read_marks
from tutor.progress.sqlite import BUSY_TIMEOUT_MS, DB_FILENAME
from tutor.progress.store import StoreError, check_database_url, redact

Rows = list[tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Attempt:
    learner: str
    lesson: str
    question: str
    answer: Any
    correct: bool
    at: float


@dataclass
class ClassProgress:
    """The rows of every learner (guests never have any: their progress is not kept)."""

    # (learner, lesson, page) -> (first_at, last_at, visits)
    visits: dict[tuple[str, str, int], tuple[float, float, int]] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)  # in the order they were made
    # (learner, lesson) -> {section: text}
    summaries: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    summary_times: dict[tuple[str, str], float] = field(default_factory=dict)
    submitted: set[tuple[str, str]] = field(default_factory=set)
    # (learner, lesson) -> the sections of their last submitted summary
    submitted_summaries: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    # (learner, lesson, item) -> the claims the learner marked as covered
    self_checks: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    # (learner, lesson, item) -> the teacher's marks on that answer (tutor review)
    teacher_marks: dict[tuple[str, str, str], TeacherMarks] = field(default_factory=dict)
    # learner -> when a served session of theirs last started or ended
    sessions_seen: dict[str, float] = field(default_factory=dict)
    guest_sessions: int = 0

    def learners(self, lesson: str) -> set[str]:
        """Everyone with a row in this lesson."""
        found = {learner for learner, les, _ in self.visits if les == lesson}
        found |= {a.learner for a in self.attempts if a.lesson == lesson}
        found |= {learner for learner, les in self.summaries if les == lesson}
        return found


def _fill(read: Callable[[str], Rows], version: int) -> ClassProgress:
    out = ClassProgress()
    for learner, lesson, page, first_at, last_at, visits in read(
        "SELECT learner, lesson, page, first_at, last_at, visits FROM page_visits"
    ):
        out.visits[(learner, lesson, page)] = (first_at, last_at, visits)
    for learner, lesson, question, answer, correct, at in read(
        "SELECT learner, lesson, question, answer, correct, at FROM quiz_attempts ORDER BY id"
    ):
        out.attempts.append(
            Attempt(learner, lesson, question, json.loads(answer), bool(correct), at)
        )
    for learner, lesson, section, text, updated_at in read(
        "SELECT learner, lesson, section, text, updated_at FROM summaries"
    ):
        out.summaries.setdefault((learner, lesson), {})[section] = text
        key = (learner, lesson)
        out.summary_times[key] = max(updated_at, out.summary_times.get(key, 0.0))
    for learner, lesson, sections in read(
        "SELECT learner, lesson, sections FROM summary_submissions ORDER BY id"
    ):
        out.submitted_summaries[(learner, lesson)] = json.loads(sections)  # the last one stays
    out.submitted = set(out.submitted_summaries)
    if version >= 2:  # each step's tables exist only from its version on
        for learner, lesson, item, claims in read(
            "SELECT learner, lesson, item, claims FROM self_checks"
        ):
            out.self_checks[(learner, lesson, item)] = json.loads(claims)
    if version >= 3:
        for learner, guest, started_at, ended_at in read(
            "SELECT learner, guest, started_at, ended_at FROM served_sessions"
        ):
            if guest:
                out.guest_sessions += 1
                continue
            seen = max(started_at, ended_at or 0.0)
            out.sessions_seen[learner] = max(seen, out.sessions_seen.get(learner, 0.0))
    if version >= 5:
        for learner, lesson, item, marks, comment in read(
            "SELECT learner, lesson, item, marks, comment FROM teacher_marks"
        ):
            out.teacher_marks[(learner, lesson, item)] = read_marks(marks, comment)
    return out


def _owner_can_write(path: Path, uid: int, gid: int) -> bool:
    """Whether the user `uid` may write a file of `path`'s mode owned by someone else with
    group `gid`: through its group bits if they are in the group, else its others' bits."""
    import grp
    import pwd

    mode = path.stat().st_mode
    if mode & 0o002:
        return True
    try:
        owner = pwd.getpwuid(uid)
        members = grp.getgrgid(gid).gr_mem
    except KeyError:
        return False
    return bool(mode & 0o020) and (owner.pw_gid == gid or owner.pw_name in members)


def _sidecars(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]


def _guard_sidecars(path: Path) -> list[Path]:
    """The `-wal` and `-shm` files the read-only open will create, once checked that the
    file's owner (the server's user) can write them afterwards.

    SQLite creates them when they are missing (no connection open: the server stopped),
    owned by whoever reads, with the file's mode. As root it hands them to the file's
    owner itself; as the owner nothing changes. Any other user's files are given the
    file's group (possible when they are in it), which is enough only if the group or
    everyone may write: otherwise reading is refused, so that the server never finds
    files it cannot write ("attempt to write a readonly database")."""
    missing = [sidecar for sidecar in _sidecars(path) if not sidecar.exists()]
    status = path.stat()
    if not missing or os.geteuid() in (0, status.st_uid):
        return []
    may_chgrp = status.st_gid == os.getegid() or status.st_gid in os.getgroups()
    target_gid = status.st_gid if may_chgrp else os.getegid()
    if not _owner_can_write(path, status.st_uid, target_gid):
        import pwd

        try:
            owner = pwd.getpwuid(status.st_uid).pw_name
        except KeyError:
            owner = str(status.st_uid)
        raise StoreError(
            f"{path}: reading it now would create {missing[0].name} owned by you, which the "
            f"server's user could not write; run it as the file's owner ({owner}) or as root "
            "(or while the server runs)"
        )
    return missing


def _hand_over(created: list[Path], path: Path) -> None:
    """The files the open created get the database file's group."""
    gid = path.stat().st_gid
    for sidecar in created:
        try:
            if sidecar.stat().st_uid == os.geteuid() and sidecar.stat().st_gid != gid:
                os.chown(sidecar, -1, gid)
        except OSError:  # gone (the server removed them) or not ours to change
            continue


def read_sqlite(data_dir: Path) -> ClassProgress:
    path = data_dir / DB_FILENAME
    if not path.is_file():
        raise StoreError(
            f"{path}: no progress file here yet (has anyone used the tutor?)",
            "no_progress_yet",
            location=str(path),
        )
    created = _guard_sidecars(path)
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        message = f"{path}: cannot open the progress file: {exc}"
        raise StoreError(message, location=str(path)) from exc
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        with db:  # one read transaction: a consistent snapshot
            db.execute("BEGIN")
            (version,) = db.execute("PRAGMA user_version").fetchone()
            _hand_over(created, path)  # the first read created them
            if version > SCHEMA_VERSION:
                raise too_new(str(path), version, "--data-dir")

            def read(sql: str) -> Rows:
                return db.execute(sql).fetchall()

            return _fill(read, version)
    except sqlite3.Error as exc:
        message = f"{path}: cannot read the progress file: {exc}"
        raise StoreError(message, location=str(path)) from exc
    finally:
        db.close()


def read_postgres(url: str) -> ClassProgress:
    import psycopg

    from tutor.progress.postgres import connect

    conn = connect(check_database_url(url), read_only=True)
    try:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        exists = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            raise StoreError(f"{redact(url)}: no progress tables here yet")
        (version,) = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        if version > SCHEMA_VERSION:
            raise too_new(redact(url), version, "--database")

        def read(sql: str, params: Sequence[Any] = ()) -> Rows:
            return conn.execute(sql, params).fetchall()

        progress = _fill(read, version)
        conn.execute("COMMIT")
        return progress
    except psycopg.Error as exc:
        raise StoreError(f"{redact(url)}: cannot read the progress database: {exc}") from exc
    finally:
        conn.close()


def read_class(data_dir: Path | None = None, database: str | None = None) -> ClassProgress:
    """The class's progress from the database URL if given, else the data dir's file."""
    if database is not None:
        return read_postgres(database)
    from tutor.progress.store import default_data_dir

    return read_sqlite(data_dir or default_data_dir())
