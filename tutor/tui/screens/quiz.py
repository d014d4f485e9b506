"""The quiz: questions with immediate feedback, then (optionally) the summary form."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.content.grade import rubric_for
from tutor.content.models import QuizFront
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.quiz import QuizQuestion


class QuizScreen(PageScreen):
    KIND = "quiz"

    def compose_after_body(self) -> ComposeResult:
        front = self.page.front
        assert isinstance(front, QuizFront)
        for number, question in enumerate(front.questions, 1):
            rubric = rubric_for(self.lesson, question.id) if question.type == "text" else None
            saved = self.saved_answer(self.lesson.id, question.id)
            yield QuizQuestion(
                question, number, self.lesson.id, rubric, saved=saved, id=f"q-{question.id}"
            )
        if front.summary is not None:
            yield from self.compose_summary(front.summary)
