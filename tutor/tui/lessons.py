"""A lesson as the learner's progress sees it: pages seen, done, where they stopped, and
which earlier lessons of the course are not done yet.

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
    # titles of prerequisite lessons not yet done: said in a note, never a lock (a learner
    # who knows the earlier lesson's matter from elsewhere must not be kept out)
    waiting_for: list[str]
    stopped_at: int | None = None  # the page the learner last opened in this lesson

    @property
    def done(self) -> bool:
        return self.total > 0 and self.seen >= self.total


def lesson_state(index: ContentIndex, store: ProgressStore, lesson: LessonEntry) -> LessonState:
    numbers = {page.number for page in lesson.pages}
    seen = len(store.visited_pages(lesson.id) & numbers)
    waiting_for = []
    for prerequisite in lesson.prerequisites:
        needed = index.lesson(prerequisite)
        if needed is not None and not lesson_state(index, store, needed).done:
            waiting_for.append(needed.title)
    return LessonState(seen, len(numbers), waiting_for, store.lesson_page(lesson.id))
