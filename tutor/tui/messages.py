"""What screens ask of the app (open a lesson or a page, turn pages, resume), and what
widgets tell their screen (an answer, a tick, a summary to save).

Screens (and the palette) post the first kind and the App answers them, so no screen needs
the concrete App class: the app imports the screens, never the other way round. Widgets
post the second kind and the screen saves: no widget touches the progress store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from textual.widget import Widget


class OpenLesson(Message):
    """Open a lesson at `page`, else where the learner left it, else its first page."""

    def __init__(self, lesson_id: str, page: int | None = None) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.page = page


class OpenPage(Message):
    def __init__(self, lesson_id: str, number: int) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.number = number


class TurnPage(Message):
    """`step` pages on (or back) from page `number`. Turns asked before the page they
    start from is drawn add up: only where they end is drawn."""

    def __init__(self, lesson_id: str, number: int, step: int) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.number = number
        self.step = step


class Resume(Message):
    """Back to where the learner last was, else the first lesson."""


# What widgets tell the screen that holds them: the screen owns the progress store, saves,
# and answers the widget (`saved(...)`) so that what the widget says about saving is true.


class Saving(Message):
    """Something the learner did that the screen saves; `control` is the widget that asks
    and is told whether the save succeeded."""

    def __init__(self, widget: Widget, lesson_id: str) -> None:
        super().__init__()
        self.widget = widget
        self.lesson_id = lesson_id

    @property
    def control(self) -> Widget:
        return self.widget


class QuestionAnswered(Saving):
    """A quiz answer was graded: one attempt to record."""

    def __init__(
        self, widget: Widget, lesson_id: str, question_id: str, answer: Any, correct: bool
    ) -> None:
        super().__init__(widget, lesson_id)
        self.question_id = question_id
        self.answer = answer
        self.correct = correct


class SelfCheckMarked(Saving):
    """The learner ticked (or unticked) reference claims their answer to `item` covers."""

    def __init__(self, widget: Widget, lesson_id: str, item: str, claims: list[str]) -> None:
        super().__init__(widget, lesson_id)
        self.item = item
        self.claims = claims


class DraftChanged(Saving):
    """Text the learner is still working on changed; the screen saves it within a second.
    `key` tells the drafts of one widget apart (its latest of each key is saved)."""

    key: str


class SummaryDraftChanged(DraftChanged):
    """A summary section's text changed."""

    def __init__(self, widget: Widget, lesson_id: str, section: str, text: str) -> None:
        super().__init__(widget, lesson_id)
        self.section = self.key = section
        self.text = text


class QuizDraftChanged(DraftChanged):
    """A quiz answer was typed or ticked and not submitted: kept as the question's draft,
    never as an attempt (QuestionAnswered replaces it)."""

    def __init__(self, widget: Widget, lesson_id: str, question_id: str, answer: Any) -> None:
        super().__init__(widget, lesson_id)
        self.question_id = self.key = question_id
        self.answer = answer


class SummarySubmitted(Saving):
    """The learner submitted their summary: every section, as one submission."""

    def __init__(self, widget: Widget, lesson_id: str, sections: dict[str, str]) -> None:
        super().__init__(widget, lesson_id)
        self.sections = sections
