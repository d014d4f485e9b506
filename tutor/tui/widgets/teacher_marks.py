"""The teacher's marks, as the learner reads them on the summary page ("老师批改").

`tutor review` writes them into the progress store; the page reads them when it opens and
mounts this under its questions and summary form. Each mark is said in words as well as a
sign, so it reads the same without colour (NO_COLOR).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from tutor.content.grade import gradable_items, rubric_for
from tutor.core.printable import printable
from tutor.tui.context import tutor_context
from tutor.tui.widgets.rubric_feedback import styled_lines

if TYPE_CHECKING:
    from tutor.content.models import Lesson
    from tutor.progress.marks import TeacherMarks
    from tutor.tui.context import TutorContext


def item_title(ctx: TutorContext, lesson: Lesson, item: str, summary: str = "summary.title") -> str:
    """The summary's title (`summary`: the learner's 你的总结, the teacher's 总结), or
    第 5 题 for a text question (numbered as in the quiz and in `tutor report`)."""
    from tutor.content.grade import SUMMARY
    from tutor.progress.report import quiz_questions

    if item == SUMMARY:
        return ctx.t(summary)
    numbers = {question.id: n for n, question in enumerate(quiz_questions(lesson), 1)}
    return ctx.t("marks.question", number=numbers.get(item, "?"))


def marks_lines(
    ctx: TutorContext, lesson: Lesson, item: str, marks: TeacherMarks
) -> list[tuple[str, str]]:
    """One item's marks as lines with their styles: claims, misconceptions, the comment."""
    rubric = rubric_for(lesson, item)
    lines: list[tuple[str, str]] = []
    for claim in rubric.claims:
        if claim.id in marks.claims:
            met = marks.claims[claim.id]
            text = claim.claim_zh if ctx.lang == "zh" else claim.claim_en
            key = "marks.met" if met else "marks.not_met"
            lines.append((ctx.t(key, claim=text), "$text-success" if met else "$text-warning"))
    for misconception in rubric.misconceptions:
        held = marks.misconceptions.get(misconception.id)
        if held is not None:
            name = misconception.name_zh if ctx.lang == "zh" else misconception.name_en
            style = "$text-warning" if held == "held" else "$text-success"
            lines.append((ctx.t(f"marks.{held}", misconception=name), style))
    if marks.comment.strip():
        comment = printable(marks.comment.strip(), keep_newlines=True)
        lines.append((ctx.t("marks.comment", comment=comment), "italic"))
    return lines


class TeacherMarksView(Vertical):
    DEFAULT_CSS = """
    TeacherMarksView { height: auto; margin: 1 0; border-left: thick $accent; padding: 0 1; }
    TeacherMarksView > Static { height: auto; }
    TeacherMarksView .marks-item { margin: 1 0 0 0; text-style: bold; }
    """

    def __init__(self, lesson: Lesson, marks: dict[str, TeacherMarks], *, id: str | None = None):
        super().__init__(id=id)
        self.lesson = lesson
        self.marks = marks

    def _items(self) -> list[str]:
        """The marked items in the lesson's order; marks of an item the lesson no longer
        has are not shown."""
        return [item for item in gradable_items(self.lesson) if item in self.marks]

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield Static(Content.styled(ctx.t("marks.title"), "bold underline"))
        for item in self._items():
            yield Static(item_title(ctx, self.lesson, item), classes="marks-item")
            lines = marks_lines(ctx, self.lesson, item, self.marks[item])
            yield Static(styled_lines(lines or [(ctx.t("marks.none"), "dim")]))

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        lines = [ctx.t("marks.title")]
        for item in self._items():
            lines.append(item_title(ctx, self.lesson, item))
            found = marks_lines(ctx, self.lesson, item, self.marks[item])
            lines += [text for text, _ in found] or [ctx.t("marks.none")]
        return "\n".join(lines)
