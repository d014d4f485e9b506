"""The lesson index: what the lesson list and the command palette show, without the pages.

Why a second, smaller form of the content: the TUI's first screen needs each lesson's
card line, its prerequisites and its page numbers, titles and kinds, and nothing that
needs pydantic or a YAML parser to read. The index is plain data, read with json alone from
a LessonSet's JSON form, which is what the content cache (tutor.content.cache) keeps.
Its records are NamedTuples: defined on every start, they cost a tenth of a dataclass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from tutor.content.problems import Problem

T = TypeVar("T")


class PageEntry(NamedTuple):
    number: int
    kind: str
    title: str


class LessonEntry(NamedTuple):
    id: str
    title: str
    question: str
    prerequisites: tuple[str, ...]  # ids of the lessons to finish first
    next_lesson: str | None  # id of the lesson after this one in the course
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


def _typed(value: Any, kind: type[T]) -> T:
    """value, if it is a `kind` (a bool is not an int here); else the data is not ours."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, found {type(value).__name__}")
    return value


def index_of(data: Any) -> ContentIndex:
    """The index of a LessonSet in its JSON form (`LessonSet.model_dump(mode="json")`),
    read with json's types alone. TypeError, KeyError or ValueError: not that form."""
    lessons = []
    for lesson in _typed(data["lessons"], list):
        card = lesson["card"]
        prerequisites = _typed(card["prerequisites"], list)
        pages = _typed(lesson["pages"], list)
        following = card["next_lesson"]
        lessons.append(
            LessonEntry(
                id=_typed(card["id"], str),
                title=_typed(card["title"], str),
                question=_typed(card["question"], str),
                prerequisites=tuple(
                    _typed(p["lesson"], str) for p in prerequisites if p["lesson"] is not None
                ),
                next_lesson=following and _typed(following, str),
                pages=tuple(
                    PageEntry(
                        _typed(page["number"], int),
                        _typed(page["front"]["kind"], str),
                        _typed(page["front"]["title"], str),
                    )
                    for page in pages
                ),
            )
        )
    problems = []
    for problem in _typed(data["problems"], list):
        severity = _typed(problem["severity"], str)
        if severity not in ("error", "warning"):
            raise ValueError(f"unknown severity {severity!r}")
        problems.append(
            Problem(
                Path(_typed(problem["path"], str)),
                _typed(problem["line"], int),
                _typed(problem["col"], int),
                "error" if severity == "error" else "warning",
                _typed(problem["message"], str),
                _typed(problem["excerpt"], str),
                _typed(problem["width"], int),
                _typed(problem["code"], str),
                _typed(problem["values"], dict),
            )
        )
    return ContentIndex(tuple(lessons), tuple(problems))
