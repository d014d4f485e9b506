"""What a progress store offers, whatever keeps it, and how one is chosen and opened.

`open_store` picks the backend: a guest gets an in-memory SQLite store that writes
nothing; a `postgresql://` URL (from `--database` or TUTOR_DATABASE) gets PostgreSQL;
everything else the SQLite file in the data dir.
"""

from __future__ import annotations

import getpass
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tutor.core.refusal import Coded

if TYPE_CHECKING:
    from tutor.progress.marks import TeacherMarks

DATABASE_ENV = "TUTOR_DATABASE"
_URL_SCHEMES = ("postgresql://", "postgres://")


# What one learner may store, so that one learner cannot fill a shared server's disk:
# every text is cut at MAX_TEXT_CHARS (the widgets show the count and stop there too;
# so is an answer typed and not submitted, a draft, kept one per question),
# a summary submitted again unchanged is not stored again, and the rows that grow with
# each press are capped. Everything else is one row per page or section.
MAX_TEXT_CHARS = 2000
MAX_ATTEMPTS_PER_QUESTION = 500
MAX_SUBMISSIONS_PER_LESSON = 20
# A quiz answer is stored as JSON of at most this many characters; bigger ones (a list or
# a dict of any size) are refused. A text answer cut at MAX_TEXT_CHARS always fits: a
# character is at most 6 in JSON (\u0000), 12,002 in all.
MAX_ANSWER_JSON_CHARS = 16_000
# The teacher's comment on one answer (tutor review): short, read on the summary page; the
# review's field stops there, and the store cuts anything longer.
MAX_COMMENT_CHARS = 500


class StoreError(Coded, RuntimeError):
    """The progress store cannot be used (written by a newer tutor, unreachable, ...). The
    message is English, for the command line and logs; the code (tutor.progress.trouble)
    lets an interface say why in its language."""


class StoreLimitError(StoreError):
    """A write that would pass one of the per-learner limits above (a code per limit)."""


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


class ProgressStore(Protocol):
    """All reads and writes of one learner's progress; every write is committed before the
    call returns, so a killed session loses nothing it was told was saved."""

    learner: str
    guest: bool

    @property
    def location(self) -> str | None:
        """Where the progress is kept, as a person reads it (None for a guest)."""

    def close(self) -> None: ...

    def visit_page(self, lesson: str, page: int) -> None: ...
    def visited_pages(self, lesson: str) -> set[int]: ...
    def lesson_page(self, lesson: str) -> int | None: ...
    def last_position(self) -> Position | None: ...

    def record_attempt(self, lesson: str, question: str, answer: Any, correct: bool) -> None: ...
    def attempts(self, lesson: str, question: str) -> list[QuizAttempt]: ...
    def last_attempt(self, lesson: str, question: str) -> QuizAttempt | None: ...

    def save_draft(self, lesson: str, question: str, answer: Any) -> None:
        """What the learner typed or ticked for `question` and has not submitted: one per
        question, replaced by the next, deleted by record_attempt; never an attempt."""

    def drafts(self, lesson: str) -> dict[str, Any]: ...

    def save_summary(self, lesson: str, section: str, text: str) -> None: ...
    def summary(self, lesson: str) -> dict[str, str]: ...
    def submit_summary(self, lesson: str, sections: dict[str, str]) -> None: ...
    def summary_submitted(self, lesson: str) -> bool: ...

    def save_self_check(self, lesson: str, item: str, claims: list[str]) -> None: ...
    def self_check(self, lesson: str, item: str) -> list[str]: ...

    def save_teacher_marks(
        self, learner: str, lesson: str, item: str, marks: TeacherMarks
    ) -> None: ...
    def teacher_marks(self, lesson: str) -> dict[str, TeacherMarks]: ...


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


def default_database() -> str | None:
    """`TUTOR_DATABASE`: a PostgreSQL URL that replaces the SQLite file when set."""
    return os.environ.get(DATABASE_ENV) or None


def guest_requested() -> bool:
    """`tutor serve` marks guest sessions with TUTOR_GUEST=1: nothing is saved for them."""
    return os.environ.get("TUTOR_GUEST", "") not in ("", "0")


def check_database_url(url: str) -> str:
    """The URL itself, or a StoreError that says what is accepted."""
    if not url.startswith(_URL_SCHEMES):
        raise StoreError(
            f"{redact(url)}: a progress database is a postgresql://user@host/dbname URL; "
            "for the SQLite file, give a data dir instead"
        )
    return url


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    url = re.sub(r"(://[^:/@?#]*):[^@/?#]*@", r"\1:***@", url)
    return re.sub(r"(password=)[^&\s]*", r"\1***", url)
