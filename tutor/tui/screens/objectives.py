"""The lesson's first page: its question, objectives, prerequisites and warning."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.tui.context import tutor_context
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.lesson_card import LessonCardView


class ObjectivesScreen(PageScreen):
    KIND = "objectives"

    def compose_before_body(self) -> ComposeResult:
        """The card opens the lesson; later objectives pages go straight to their text."""
        if self.page is self.lesson.pages[0]:
            titles = tutor_context(self).lesson_titles()
            yield LessonCardView(self.lesson.card, titles)
