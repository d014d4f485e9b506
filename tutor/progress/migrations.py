"""The progress schema as numbered steps, the same in SQLite and PostgreSQL.

A store opens by running every step newer than the version its database records, in one
write transaction that holds the database's lock, so two first starts at once take turns
and each step runs exactly once. A database newer than the last step is refused: a tutor
must not write into a schema it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass

from tutor.progress.store import StoreError


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    what: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]


def _both(*statements: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """SQLite's and PostgreSQL's text of statements written once: `{id}` is an
    auto-numbered key, `{real}` a float column."""
    sqlite = tuple(
        s.format(id="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL") for s in statements
    )
    postgres = tuple(
        s.format(id="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", real="DOUBLE PRECISION")
        for s in statements
    )
    return sqlite, postgres


_V1 = _both(
    """CREATE TABLE IF NOT EXISTS page_visits (
        learner TEXT NOT NULL, lesson TEXT NOT NULL, page INTEGER NOT NULL,
        first_at {real} NOT NULL, last_at {real} NOT NULL, visits INTEGER NOT NULL,
        PRIMARY KEY (learner, lesson, page))""",
    """CREATE TABLE IF NOT EXISTS positions (
        learner TEXT NOT NULL, lesson TEXT NOT NULL, page INTEGER NOT NULL,
        at {real} NOT NULL, PRIMARY KEY (learner, lesson))""",
    """CREATE TABLE IF NOT EXISTS quiz_attempts (
        id {id},
        learner TEXT NOT NULL, lesson TEXT NOT NULL, question TEXT NOT NULL,
        answer TEXT NOT NULL, correct INTEGER NOT NULL, at {real} NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS quiz_attempts_by_question
        ON quiz_attempts (learner, lesson, question, id)""",
    """CREATE TABLE IF NOT EXISTS summaries (
        learner TEXT NOT NULL, lesson TEXT NOT NULL, section TEXT NOT NULL,
        text TEXT NOT NULL, updated_at {real} NOT NULL,
        PRIMARY KEY (learner, lesson, section))""",
    """CREATE TABLE IF NOT EXISTS summary_submissions (
        id {id},
        learner TEXT NOT NULL, lesson TEXT NOT NULL, sections TEXT NOT NULL,
        at {real} NOT NULL)""",
)

_V2 = _both(
    # claims: a JSON list of the reference claims the learner says the answer covers
    """CREATE TABLE IF NOT EXISTS self_checks (
        learner TEXT NOT NULL, lesson TEXT NOT NULL, item TEXT NOT NULL,
        claims TEXT NOT NULL, at {real} NOT NULL,
        PRIMARY KEY (learner, lesson, item))""",
)

_V3 = _both(
    """CREATE TABLE IF NOT EXISTS served_sessions (
        id TEXT PRIMARY KEY, node TEXT NOT NULL, learner TEXT NOT NULL,
        guest INTEGER NOT NULL, started_at {real} NOT NULL, ended_at {real})""",
)

_V4 = _both(
    # answer: JSON of what the learner typed or ticked and has not submitted (one per
    # question, replaced as they go on, deleted when they submit); never an attempt
    """CREATE TABLE IF NOT EXISTS quiz_drafts (
        learner TEXT NOT NULL, lesson TEXT NOT NULL, question TEXT NOT NULL,
        answer TEXT NOT NULL, at {real} NOT NULL,
        PRIMARY KEY (learner, lesson, question))""",
)

_V5 = _both(
    # marks: JSON of tutor.progress.marks.TeacherMarks without the comment; one row per
    # learner and item (the summary or a text question), replaced when marked again
    """CREATE TABLE IF NOT EXISTS teacher_marks (
        learner TEXT NOT NULL, lesson TEXT NOT NULL, item TEXT NOT NULL,
        marks TEXT NOT NULL, comment TEXT NOT NULL, at {real} NOT NULL,
        PRIMARY KEY (learner, lesson, item))""",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "pages, positions, quiz attempts, summaries", *_V1),
    Migration(2, "self-check marks", *_V2),
    Migration(3, "a log of served sessions", *_V3),
    Migration(4, "quiz answers not submitted yet", *_V4),
    Migration(5, "the teacher's marks and comments", *_V5),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


def newer_than(version: int) -> list[Migration]:
    """The steps a database at `version` still needs, oldest first."""
    return [m for m in MIGRATIONS if m.version > version]


def too_new(location: str, version: int, where_else: str) -> StoreError:
    """What is raised when the database is newer than this tutor (code too_new)."""
    return StoreError(
        f"{location}: progress schema v{version} is newer than this tutor "
        f"(v{SCHEMA_VERSION}); upgrade the tutor or point {where_else} elsewhere",
        "too_new",
        version=version,
        supported=SCHEMA_VERSION,
    )
