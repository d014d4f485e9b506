"""The lesson's first page: its question, objectives, prerequisites and warning."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.tui.context import tutor_context
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.lesson_card import LessonCardView


class ObjectivesScreen(PageScreen):
    KIND = "objectives"

    @property
    def opens_lesson(self) -> bool:
        return self.page is self.lesson.pages[0]

    @property
    def shows_title(self) -> bool:
        """The lesson card's first line is the lesson's question, which is this title."""
        return not self.opens_lesson

    def compose_before_body(self) -> ComposeResult:
        """The card opens the lesson; later objectives pages go straight to their text."""
        if self.opens_lesson:
            titles = tutor_context(self).lesson_titles()
            yield LessonCardView(self.lesson.card, titles)
