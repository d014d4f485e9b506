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
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from tutor.progress.store import (
    MAX_ANSWER_JSON_CHARS,
    MAX_ATTEMPTS_PER_QUESTION,
    MAX_COMMENT_CHARS,
    MAX_SUBMISSIONS_PER_LESSON,
    MAX_TEXT_CHARS,
    Position,
    QuizAttempt,
    StoreLimitError,
)

if TYPE_CHECKING:
    from tutor.progress.marks import TeacherMarks

_SAVE_SUMMARY = (
    "INSERT INTO summaries VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (learner, lesson, section) DO UPDATE "
    "SET text = excluded.text, updated_at = excluded.updated_at"
)
_DELETE_DRAFT = "DELETE FROM quiz_drafts WHERE learner = ? AND lesson = ? AND question = ?"


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


def _answer_json(answer: Any) -> str:
    """A quiz answer (or draft) as stored: JSON, a text cut at MAX_TEXT_CHARS first."""
    if isinstance(answer, str):
        answer = answer[:MAX_TEXT_CHARS]
    return json.dumps(answer, ensure_ascii=False)


def _check_size(written: str) -> None:
    """Refuse an answer whose JSON passes MAX_ANSWER_JSON_CHARS (a list has no cut)."""
    if len(written) > MAX_ANSWER_JSON_CHARS:
        raise StoreLimitError(
            f"this answer is {len(written):,} characters long when stored; "
            f"the most kept is {MAX_ANSWER_JSON_CHARS:,}",
            "answer_too_big",
            chars=len(written),
            limit=MAX_ANSWER_JSON_CHARS,
        )


class SqlProgressStore(ABC):
    """A ProgressStore for one learner on top of four primitives a backend supplies."""

    # how "the most recent position" breaks a tie of equal timestamps
    LATEST_FIRST: ClassVar[str] = "at DESC"
    # what the backend's driver raises when a write fails
    WRITE_ERRORS: ClassVar[tuple[type[Exception], ...]] = ()

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
        """`_transaction`, with text made storable on both backends (see NUL_KEPT_AS).

        A write that fails is rolled back whole and raised: the tutor's screens catch it
        and tell the learner (tutor.tui.screens.saving); what was committed before stays.
        """

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
        """One attempt; it replaces the question's draft (see save_draft)."""
        written = _answer_json(answer)
        row = (self.learner, lesson, question, written, int(correct), time.time())

        def record(run: Run) -> None:
            _check_size(written)
            ((stored,),) = run(
                "SELECT count(*) FROM quiz_attempts "
                "WHERE learner = ? AND lesson = ? AND question = ?",
                (self.learner, lesson, question),
            )
            if stored >= MAX_ATTEMPTS_PER_QUESTION:
                raise StoreLimitError(
                    f"this question already has {MAX_ATTEMPTS_PER_QUESTION} saved attempts, "
                    "the most kept per learner",
                    "attempts",
                    limit=MAX_ATTEMPTS_PER_QUESTION,
                )
            run(
                "INSERT INTO quiz_attempts (learner, lesson, question, answer, correct, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
            run(_DELETE_DRAFT, (self.learner, lesson, question))

        self.transact(record)

    def save_draft(self, lesson: str, question: str, answer: Any) -> None:
        """What the learner typed or ticked for `question` and has not submitted: one row
        per question, replaced by the next and deleted by the attempt that submits it. It
        is not an attempt: the counts and `tutor report` never read it."""
        written = _answer_json(answer)

        def save(run: Run) -> None:
            _check_size(written)
            run(
                "INSERT INTO quiz_drafts VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (learner, lesson, question) DO UPDATE "
                "SET answer = excluded.answer, at = excluded.at",
                (self.learner, lesson, question, written, time.time()),
            )

        self.transact(save)

    def drafts(self, lesson: str) -> dict[str, Any]:
        """Each question's draft (see save_draft), by question id."""
        rows = self.read(
            "SELECT question, answer FROM quiz_drafts WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return {question: json.loads(answer) for question, answer in rows}

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
        text = text[:MAX_TEXT_CHARS]
        self.write((_SAVE_SUMMARY, (self.learner, lesson, section, text, time.time())))

    def summary(self, lesson: str) -> dict[str, str]:
        rows = self.read(
            "SELECT section, text FROM summaries WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return dict(rows)

    def submit_summary(self, lesson: str, sections: dict[str, str]) -> None:
        """Keep what was submitted, so the reference stays unlocked after a restart; the
        same sections submitted again are not stored twice."""
        sections = {section: text[:MAX_TEXT_CHARS] for section, text in sections.items()}
        submitted = json.dumps(sections, ensure_ascii=False)
        now = time.time()

        def submit(run: Run) -> None:
            where = (self.learner, lesson)
            last = run(
                "SELECT sections FROM summary_submissions WHERE learner = ? AND lesson = ? "
                "ORDER BY id DESC LIMIT 1",
                where,
            )
            if last and last[0][0] == _storable(submitted):
                return
            ((count,),) = run(
                "SELECT count(*) FROM summary_submissions WHERE learner = ? AND lesson = ?",
                where,
            )
            if count >= MAX_SUBMISSIONS_PER_LESSON:
                raise StoreLimitError(
                    f"this summary has been submitted {MAX_SUBMISSIONS_PER_LESSON} times, "
                    "the most kept per learner; your text itself is saved",
                    "submissions",
                    limit=MAX_SUBMISSIONS_PER_LESSON,
                )
            for section, text in sections.items():
                run(_SAVE_SUMMARY, (self.learner, lesson, section, text, now))
            run(
                "INSERT INTO summary_submissions (learner, lesson, sections, at) "
                "VALUES (?, ?, ?, ?)",
                (self.learner, lesson, submitted, now),
            )

        self.transact(submit)

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

    # the teacher's marks -----------------------------------------------------

    def save_teacher_marks(self, learner: str, lesson: str, item: str, marks: TeacherMarks) -> None:
        """The teacher's marks on `learner`'s answer to `item`, replacing earlier ones: the
        one write for another learner than the store's own (`tutor review` marks them all)."""
        comment = marks.comment[:MAX_COMMENT_CHARS]
        written = marks.model_dump_json(exclude={"comment"})
        self.write(
            (
                "INSERT INTO teacher_marks VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (learner, lesson, item) DO UPDATE "
                "SET marks = excluded.marks, comment = excluded.comment, at = excluded.at",
                (learner, lesson, item, written, comment, time.time()),
            )
        )

    def teacher_marks(self, lesson: str) -> dict[str, TeacherMarks]:
        """The teacher's marks on this learner's answers, by item."""
        rows = self.read(
            "SELECT item, marks, comment FROM teacher_marks WHERE learner = ? AND lesson = ?",
            (self.learner, lesson),
        )
        return {item: read_marks(marks, comment) for item, marks, comment in rows}


def read_marks(marks: str, comment: str) -> TeacherMarks:
    """A stored row's marks (JSON without the comment) and comment, as one TeacherMarks.
    Imported here: pydantic is not needed to open a store."""
    from tutor.progress.marks import TeacherMarks

    return TeacherMarks.model_validate_json(marks).model_copy(update={"comment": comment})
