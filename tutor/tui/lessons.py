"""A lesson as the learner's progress sees it: pages seen, done, locked by what.

Kept out of the App so that the lesson list, the palette and the quiz read it from the
shared context, not from the concrete App class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tutor.content.index import ContentIndex, LessonEntry
    from tutor.progress.store import ProgressStore


class LessonState(NamedTuple):
    seen: int
    total: int
    locked_by: list[str]  # titles of prerequisite lessons not yet done

    @property
    def done(self) -> bool:
        return self.total > 0 and self.seen >= self.total


def lesson_state(index: ContentIndex, store: ProgressStore, lesson: LessonEntry) -> LessonState:
    numbers = {page.number for page in lesson.pages}
    seen = len(store.visited_pages(lesson.id) & numbers)
    locked_by = []
    for prerequisite in lesson.prerequisites:
        needed = index.lesson(prerequisite)
        if needed is not None and not lesson_state(index, store, needed).done:
            locked_by.append(needed.title)
    return LessonState(seen, len(numbers), locked_by)
