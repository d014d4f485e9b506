"""Lesson files -> validated pydantic models, and `tutor check`. Never imports textual.

The names below are imported on first use (PEP 562): a module that needs only the problems
or the lesson index, like the TUI's first screen, does not pay for pydantic and ruamel.yaml.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tutor.lazy import load

if TYPE_CHECKING:
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

_HOMES = {
    "FactRef": "prose",
    "Lesson": "models",
    "LessonCard": "models",
    "LessonSet": "models",
    "MarkdownBlock": "models",
    "Page": "models",
    "Problem": "problems",
    "Question": "models",
    "Summary": "models",
    "WidgetBlock": "models",
    "load_lessons": "loader",
    "render_problem": "problems",
    "split_fact_refs": "prose",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load(f"{__name__}.{home}:{name}")
