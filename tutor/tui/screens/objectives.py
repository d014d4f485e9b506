"""The lesson's first page: its question, objectives, prerequisites and warning."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.lesson_card import LessonCardView


class ObjectivesScreen(PageScreen):
    KIND = "objectives"

    def compose_before_body(self) -> ComposeResult:
        yield LessonCardView(self.lesson.card, self.tutor_app.lesson_titles())
