"""The quiz: questions with immediate feedback, then (optionally) the summary form."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.content.models import QuizFront
from tutor.tui.lessons import rubric_claims
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.quiz import QuizQuestion
from tutor.tui.widgets.summary import SummaryEditor


class QuizScreen(PageScreen):
    KIND = "quiz"

    def compose_after_body(self) -> ComposeResult:
        front = self.page.front
        assert isinstance(front, QuizFront)
        claims = rubric_claims(self.lesson)
        for number, question in enumerate(front.questions, 1):
            yield QuizQuestion(question, number, self.lesson.id, claims, id=f"q-{question.id}")
        if front.summary is not None:
            yield SummaryEditor(front.summary, self.lesson.id, id="summary")
