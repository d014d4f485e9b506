"""The learner's reads and writes in SQL that SQLite and PostgreSQL both run.

Statements are written with `?` placeholders; a backend says how to read, how to run
work (statements, and reads that decide them) as one write transaction, and how to
order "latest first". Each write is its own short transaction, committed before the
call returns.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

from tutor.progress.store import Position, QuizAttempt

_SAVE_SUMMARY = (
    "INSERT INTO summaries VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (learner, lesson, section) DO UPDATE "
    "SET text = excluded.text, updated_at = excluded.updated_at"
)


T = TypeVar("T")
Statement = tuple[str, Sequence[Any]]
Rows = list[tuple[Any, ...]]
# runs one statement inside the open transaction; the rows it returned ([] for none)
Run = Callable[[str, Sequence[Any]], Rows]
# A pasted NUL character (terminals can send one) cannot be kept in PostgreSQL text; both
# backends keep it as U+FFFD so a learner's text reads the same wherever it is stored.
NUL_KEPT_AS = "\ufffd"


def _storable(value: Any) -> Any:
    return value.replace("\x00", NUL_KEPT_AS) if isinstance(value, str) else value


class SqlProgressStore(ABC):
    """A ProgressStore for one learner on top of four primitives a backend supplies."""

    # how "the most recent position" breaks a tie of equal timestamps
    LATEST_FIRST: ClassVar[str] = "at DESC"

    learner: str
    guest: bool

    @abstractmethod
    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row a read returns."""

    @abstractmethod
    def _transaction(self, work: Callable[[Run], T]) -> T:
        """`work` in one write transaction, committed after it returns; if it raises,
        nothing it ran is kept. It may run again (on a new connection) and so must
        decide everything from what `run` returns."""

    def transact(self, work: Callable[[Run], T]) -> T:
        """`_transaction`, with text made storable on both backends (see NUL_KEPT_AS)."""

        def storable_work(run: Run) -> T:
            return work(lambda sql, params=(): run(sql, [_storable(p) for p in params]))

        return self._transaction(storable_work)

    def write(self, *statements: Statement) -> None:
        """The statements, as one write transaction."""
        self.transact(lambda run: [run(sql, params) for sql, params in statements])

    @property
    @abstractmethod
    def location(self) -> str | None: ...

    @abstractmethod
    def close(self) -> None: ...

    def read_one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        rows = self.read(sql, params)
        return rows[0] if rows else None

    # pages -----------------------------------------------------------------

    def visit_page(self, lesson: str, page: int) -> None:
        """Record a visit and make this page the place to resume."""
        now = time.time()
        self.write(
            (
                "INSERT INTO page_visits VALUES (?, ?, ?, ?, ?, 1) "
                "ON CONFLICT (learner, lesson, page) DO UPDATE "
                "SET last_at = excluded.last_at, visits = page_visits.visits + 1",
                (self.learner, lesson, page, now, now),
            ),
            (
                "INSERT INTO positions VALUES (?, ?, ?, ?) ON CONFLICT (learner, lesson) "
                "DO UPDATE SET page = excluded.page, at = excluded.at",
                (self.learner, lesson, page, now),
            ),
        )

    def visited_pages(self, lesson: str) -> set[int]:
        rows = self.read(
            "SELECT page FROM page_visits WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return {page for (page,) in rows}

    def lesson_page(self, lesson: str) -> int | None:
        """The page of this lesson the learner saw last."""
        row = self.read_one(
            "SELECT page FROM positions WHERE learner = ? AND lesson = ?", (self.learner, lesson)
        )
        return row[0] if row else None

    def last_position(self) -> Position | None:
        """Where the learner was last, across lessons: the place `tutor` resumes."""
        row = self.read_one(
            "SELECT lesson, page FROM positions WHERE learner = ? "
            f"ORDER BY {self.LATEST_FIRST} LIMIT 1",
            (self.learner,),
        )
        return Position(row[0], row[1]) if row else None

    # quiz ------------------------------------------------------------------

    def record_attempt(self, lesson: str, question: str, answer: Any, correct: bool) -> None:
        self.write(
            (
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
        )

    def attempts(self, lesson: str, question: str) -> list[QuizAttempt]:
        rows = self.read(
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
        self.write((_SAVE_SUMMARY, (self.learner, lesson, section, text, time.time())))

    def summary(self, lesson: str) -> dict[str, str]:
        rows = self.read(
            "SELECT section, text FROM summaries WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return dict(rows)

    def submit_summary(self, lesson: str, sections: dict[str, str]) -> None:
        """Keep what was submitted, so the reference stays unlocked after a restart."""
        now = time.time()
        saves = [
            (_SAVE_SUMMARY, (self.learner, lesson, section, text, now))
            for section, text in sections.items()
        ]
        self.write(
            *saves,
            (
                "INSERT INTO summary_submissions (learner, lesson, sections, at) "
                "VALUES (?, ?, ?, ?)",
                (self.learner, lesson, json.dumps(sections, ensure_ascii=False), now),
            ),
        )

    def summary_submitted(self, lesson: str) -> bool:
        row = self.read_one(
            "SELECT 1 FROM summary_submissions WHERE learner = ? AND lesson = ? LIMIT 1",
            (self.learner, lesson),
        )
        return row is not None

    # self-check ------------------------------------------------------------

    def save_self_check(self, lesson: str, item: str, claims: list[str]) -> None:
        """The reference claims the learner says their answer to `item` covers."""
        self.write(
            (
                "INSERT INTO self_checks VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (learner, lesson, item) DO UPDATE "
                "SET claims = excluded.claims, at = excluded.at",
                (self.learner, lesson, item, json.dumps(claims, ensure_ascii=False), time.time()),
            )
        )

    def self_check(self, lesson: str, item: str) -> list[str]:
        row = self.read_one(
            "SELECT claims FROM self_checks WHERE learner = ? AND lesson = ? AND item = ?",
            (self.learner, lesson, item),
        )
        return json.loads(row[0]) if row else []
