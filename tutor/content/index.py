"""The lesson index: what the lesson list and the command palette show, without the pages.

Why a second, smaller form of the content: the TUI's first screen needs each lesson's
card line, its prerequisites and its page numbers, titles and kinds, and nothing that
needs pydantic or a YAML parser to read. The index is plain data, built from a validated
LessonSet or read back from the content cache (tutor.content.cache) with json alone.
Its records are NamedTuples: defined on every start, they cost a tenth of a dataclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tutor.content.problems import Problem

if TYPE_CHECKING:
    from tutor.content.models import LessonSet


class PageEntry(NamedTuple):
    number: int
    kind: str
    title: str


class LessonEntry(NamedTuple):
    id: str
    title: str
    question: str
    prerequisites: tuple[str, ...]  # ids of the lessons to finish first
    pages: tuple[PageEntry, ...]  # sorted by number

    def page(self, number: int) -> PageEntry | None:
        return next((page for page in self.pages if page.number == number), None)


class ContentIndex(NamedTuple):
    """Every lesson that loaded, in prerequisite order, and every problem found."""

    lessons: tuple[LessonEntry, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> list[Problem]:
        return [problem for problem in self.problems if problem.severity == "error"]

    def lesson(self, lesson_id: str) -> LessonEntry | None:
        return next((lesson for lesson in self.lessons if lesson.id == lesson_id), None)


def index_of(lesson_set: LessonSet) -> ContentIndex:
    """The index of a loaded LessonSet."""
    lessons = tuple(
        LessonEntry(
            id=lesson.id,
            title=lesson.card.title,
            question=lesson.card.question,
            prerequisites=tuple(
                p.lesson for p in lesson.card.prerequisites if p.lesson is not None
            ),
            pages=tuple(PageEntry(page.number, page.kind, page.title) for page in lesson.pages),
        )
        for lesson in lesson_set.lessons
    )
    return ContentIndex(lessons, tuple(lesson_set.problems))
