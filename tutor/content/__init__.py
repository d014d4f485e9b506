"""Lesson files -> validated pydantic models, and `tutor check`. Never imports textual."""

from tutor.content.loader import load_lessons
from tutor.content.models import (
    Lesson,
    LessonCard,
    LessonSet,
    MarkdownBlock,
    Page,
    Question,
    Summary,
    WidgetBlock,
)
from tutor.content.problems import Problem, render_problem
from tutor.content.prose import FactRef, split_fact_refs

__all__ = [
    "FactRef",
    "Lesson",
    "LessonCard",
    "LessonSet",
    "MarkdownBlock",
    "Page",
    "Problem",
    "Question",
    "Summary",
    "WidgetBlock",
    "load_lessons",
    "render_problem",
    "split_fact_refs",
]
