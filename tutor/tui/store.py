"""The learner's progress: page visits, quiz attempts, summaries, where to resume.

One SQLite file in the user data dir holds every learner (rows are keyed by learner id).
WAL plus a busy timeout lets two sessions of one learner write at once; every write is
its own short transaction, so a killed session loses nothing that was already written.
A guest session keeps the same tables in memory and writes nothing to disk.
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2  # 2: self_checks
DB_FILENAME = "progress.sqlite3"
BUSY_TIMEOUT_MS = 5000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS page_visits (
    learner TEXT NOT NULL, lesson TEXT NOT NULL, page INTEGER NOT NULL,
    first_at REAL NOT NULL, last_at REAL NOT NULL, visits INTEGER NOT NULL,
    PRIMARY KEY (learner, lesson, page)
);
CREATE TABLE IF NOT EXISTS positions (
    learner TEXT NOT NULL, lesson TEXT NOT NULL, page INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (learner, lesson)
);
CREATE TABLE IF NOT EXISTS quiz_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL, lesson TEXT NOT NULL, question TEXT NOT NULL,
    answer TEXT NOT NULL, correct INTEGER NOT NULL, at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS quiz_attempts_by_question
    ON quiz_attempts (learner, lesson, question, id);
CREATE TABLE IF NOT EXISTS summaries (
    learner TEXT NOT NULL, lesson TEXT NOT NULL, section TEXT NOT NULL,
    text TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (learner, lesson, section)
);
CREATE TABLE IF NOT EXISTS summary_submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL, lesson TEXT NOT NULL, sections TEXT NOT NULL, at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS self_checks (
    learner TEXT NOT NULL, lesson TEXT NOT NULL, item TEXT NOT NULL,
    claims TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (learner, lesson, item)
);
"""


# What one learner may store, so that one learner cannot fill a shared server's disk:
# every text is cut at MAX_TEXT_CHARS (the widgets show the count and stop there too),
# a summary submitted again unchanged is not stored again, and the rows that grow with
# each press are capped. Everything else is one row per page or section.
MAX_TEXT_CHARS = 2000
MAX_ATTEMPTS_PER_QUESTION = 100
MAX_SUBMISSIONS_PER_LESSON = 20


class StoreError(RuntimeError):
    """The progress file cannot be used (e.g. written by a newer tutor)."""


class StoreLimitError(StoreError):
    """A write that would pass one of the per-learner limits above; its message is the
    sentence the learner reads."""


@dataclass(frozen=True, slots=True)
class QuizAttempt:
    question: str
    answer: Any
    correct: bool
    at: float


@dataclass(frozen=True, slots=True)
class Position:
    lesson: str
    page: int


def default_learner() -> str:
    """The OS user: one learner per account unless `--learner` says otherwise."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "learner"


def default_data_dir() -> Path:
    """`TUTOR_DATA_DIR` if set, else the platform's user data dir."""
    override = os.environ.get("TUTOR_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("embedding-tutor", appauthor=False))


def guest_requested() -> bool:
    """`tutor serve` marks guest sessions with TUTOR_GUEST=1: nothing is saved for them."""
    return os.environ.get("TUTOR_GUEST", "") not in ("", "0")


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


class ProgressStore:
    """All reads and writes of one learner's progress.

    Used from the UI thread only (it may be opened on another: open_in_background); each
    call opens and commits its own transaction.
    """

    def __init__(self, learner: str, data_dir: Path | None = None, *, guest: bool = False):
        self.learner = learner
        self.guest = guest
        # told when a write fails (disk full, file broken): the app says so and goes on;
        # without it, the error is raised as before
        self.on_write_error: Callable[[sqlite3.Error | StoreLimitError], None] | None = None
        if guest:
            self.path: Path | None = None
            self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            directory = data_dir or default_data_dir()
            directory.mkdir(parents=True, exist_ok=True)
            self.path = directory / DB_FILENAME
            self._db = sqlite3.connect(
                self.path, isolation_level=None, timeout=30, check_same_thread=False
            )
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _enable_wal(self._db)
            self._db.execute("PRAGMA synchronous = NORMAL")
        self._migrate()

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: progress schema v{version} is newer than this tutor "
                f"(v{SCHEMA_VERSION}); upgrade the tutor or point TUTOR_DATA_DIR elsewhere"
            )
        if version < SCHEMA_VERSION:
            # Idempotent DDL in one write transaction: two first starts at once both succeed.
            self._db.executescript(
                f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
            )

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE takes the write lock up front, so two sessions queue, never clash.

        A write that fails is rolled back whole and reported to on_write_error; what was
        committed before stays.
        """
        try:
            if not self._db.in_transaction:
                self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            if self._db.in_transaction:
                self._db.execute("COMMIT")
        except (sqlite3.Error, StoreLimitError) as exc:
            if self.on_write_error is None:
                raise
            with suppress(sqlite3.Error):
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            self.on_write_error(exc)

    def close(self) -> None:
        self._db.close()

    # pages -----------------------------------------------------------------

    def visit_page(self, lesson: str, page: int) -> None:
        """Record a visit and make this page the place to resume."""
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO page_visits VALUES (?, ?, ?, ?, ?, 1) "
                "ON CONFLICT (learner, lesson, page) DO UPDATE "
                "SET last_at = excluded.last_at, visits = visits + 1",
                (self.learner, lesson, page, now, now),
            )
            db.execute(
                "INSERT INTO positions VALUES (?, ?, ?, ?) ON CONFLICT (learner, lesson) "
                "DO UPDATE SET page = excluded.page, at = excluded.at",
                (self.learner, lesson, page, now),
            )

    def visited_pages(self, lesson: str) -> set[int]:
        rows = self._db.execute(
            "SELECT page FROM page_visits WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return {page for (page,) in rows}

    def lesson_page(self, lesson: str) -> int | None:
        """The page of this lesson the learner saw last."""
        row = self._db.execute(
            "SELECT page FROM positions WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        ).fetchone()
        return row[0] if row else None

    def last_position(self) -> Position | None:
        """Where the learner was last, across lessons: the place `tutor` resumes."""
        row = self._db.execute(
            "SELECT lesson, page FROM positions WHERE learner = ? ORDER BY at DESC, rowid DESC",
            (self.learner,),
        ).fetchone()
        return Position(row[0], row[1]) if row else None

    # quiz ------------------------------------------------------------------

    def record_attempt(self, lesson: str, question: str, answer: Any, correct: bool) -> None:
        if isinstance(answer, str):
            answer = answer[:MAX_TEXT_CHARS]
        with self._transaction() as db:
            (stored,) = db.execute(
                "SELECT count(*) FROM quiz_attempts WHERE learner = ? AND lesson = ? "
                "AND question = ?",
                (self.learner, lesson, question),
            ).fetchone()
            if stored >= MAX_ATTEMPTS_PER_QUESTION:
                raise StoreLimitError(
                    f"this question already has {MAX_ATTEMPTS_PER_QUESTION} saved attempts, "
                    "the most kept per learner"
                )
            db.execute(
                "INSERT INTO quiz_attempts (learner, lesson, question, answer, correct, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    self.learner,
                    lesson,
                    question,
                    json.dumps(answer, ensure_ascii=False),
                    int(correct),
                    time.time(),
                ),
            )

    def attempts(self, lesson: str, question: str) -> list[QuizAttempt]:
        rows = self._db.execute(
            "SELECT question, answer, correct, at FROM quiz_attempts "
            "WHERE learner = ? AND lesson = ? AND question = ? ORDER BY id",
            (self.learner, lesson, question),
        )
        return [QuizAttempt(q, json.loads(a), bool(c), at) for q, a, c, at in rows]

    def last_attempt(self, lesson: str, question: str) -> QuizAttempt | None:
        attempts = self.attempts(lesson, question)
        return attempts[-1] if attempts else None

    # summary ---------------------------------------------------------------

    def save_summary(self, lesson: str, section: str, text: str) -> None:
        text = text[:MAX_TEXT_CHARS]
        with self._transaction() as db:
            db.execute(
                "INSERT INTO summaries VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (learner, lesson, section) DO UPDATE "
                "SET text = excluded.text, updated_at = excluded.updated_at",
                (self.learner, lesson, section, text, time.time()),
            )

    def summary(self, lesson: str) -> dict[str, str]:
        rows = self._db.execute(
            "SELECT section, text FROM summaries WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return dict(rows)

    def submit_summary(self, lesson: str, sections: dict[str, str]) -> None:
        """Keep what was submitted, so the reference stays unlocked after a restart; the
        same sections submitted again are not stored twice."""
        sections = {section: text[:MAX_TEXT_CHARS] for section, text in sections.items()}
        submitted = json.dumps(sections, ensure_ascii=False)
        with self._transaction() as db:
            previous = db.execute(
                "SELECT sections, (SELECT count(*) FROM summary_submissions "
                "WHERE learner = ?1 AND lesson = ?2) FROM summary_submissions "
                "WHERE learner = ?1 AND lesson = ?2 ORDER BY id DESC LIMIT 1",
                (self.learner, lesson),
            ).fetchone()
            if previous is not None and previous[0] == submitted:
                return
            if previous is not None and previous[1] >= MAX_SUBMISSIONS_PER_LESSON:
                raise StoreLimitError(
                    f"this summary has been submitted {MAX_SUBMISSIONS_PER_LESSON} times, "
                    "the most kept per learner; your text itself is saved"
                )
            for section, text in sections.items():
                db.execute(
                    "INSERT INTO summaries VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (learner, lesson, section) DO UPDATE "
                    "SET text = excluded.text, updated_at = excluded.updated_at",
                    (self.learner, lesson, section, text, time.time()),
                )
            db.execute(
                "INSERT INTO summary_submissions (learner, lesson, sections, at) "
                "VALUES (?, ?, ?, ?)",
                (self.learner, lesson, submitted, time.time()),
            )

    def summary_submitted(self, lesson: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM summary_submissions WHERE learner = ? AND lesson = ? LIMIT 1",
            (self.learner, lesson),
        ).fetchone()
        return row is not None

    # self-check ------------------------------------------------------------

    def save_self_check(self, lesson: str, item: str, claims: list[str]) -> None:
        """The reference claims the learner says their answer to `item` covers."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO self_checks VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (learner, lesson, item) DO UPDATE "
                "SET claims = excluded.claims, at = excluded.at",
                (self.learner, lesson, item, json.dumps(claims), time.time()),
            )

    def self_check(self, lesson: str, item: str) -> list[str]:
        row = self._db.execute(
            "SELECT claims FROM self_checks WHERE learner = ? AND lesson = ? AND item = ?",
            (self.learner, lesson, item),
        ).fetchone()
        return json.loads(row[0]) if row else []


def open_in_background(
    learner: str, data_dir: Path | None = None, *, guest: bool = False
) -> Future[ProgressStore]:
    """The store, opened on a thread while the caller goes on (imports Textual).

    Why: a first start creates the file and switches it to WAL, which waits on the disk
    (~7 ms); that wait releases the GIL, so it overlaps the import (~160 ms of Python) and
    the learner's first screen comes sooner. `result()` raises what opening raised. A bare
    thread, not a ThreadPoolExecutor: that would import its queue machinery on every start.
    """
    opened: Future[ProgressStore] = Future()

    def open_store() -> None:
        try:
            opened.set_result(ProgressStore(learner, data_dir, guest=guest))
        except BaseException as exc:  # handed to the caller's result()
            opened.set_exception(exc)

    threading.Thread(target=open_store, name="open-progress", daemon=True).start()
    return opened
