"""One learner's answer to one item, as the teacher marks it in `tutor review`.

The learner's text (each summary section under its heading), the grader's verdict on
each claim and misconception beside the teacher's own mark (MarkToggle), and the
teacher's comment. Learner text is shown through tutor.core.printable: it cannot act on
the teacher's terminal. Every change is posted (MarksChanged) for the screen to save.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static, TextArea

from tutor.content.grade import SUMMARY, rubric_for
from tutor.core.printable import printable
from tutor.progress.marks import TeacherMarks
from tutor.progress.report import lesson_summary, quiz_questions
from tutor.progress.store import MAX_COMMENT_CHARS
from tutor.tui.context import tutor_context
from tutor.tui.widgets.capped_text import CappedTextArea
from tutor.tui.widgets.mark_toggle import CLAIM_STATES, MISCONCEPTION_STATES, MarkToggle
from tutor.tui.widgets.teacher_marks import item_title

if TYPE_CHECKING:
    from tutor.content.models import Lesson
    from tutor.progress.review import Answer


# What the grader decided, as the learner's page says it (a fixed misconception is credit,
# an undecided claim is left to the teacher); a rejected misconception is not one found.
_CLAIM_KEYS = {"met": "review.grader_met", "undecided": "review.grader_undecided"}
_MISCONCEPTION_KEYS = {
    "held": "review.grader_found",
    "fixed": "review.grader_fixed",
    "undecided": "review.grader_undecided",
}


def _quoted(evidence: str) -> str:
    """The learner's clause the grader read, printable, for the teacher to check."""
    return f"「{printable(evidence.strip())}」" if evidence.strip() else ""


class MarksChanged(Message):
    """The teacher changed a mark or the comment of `item`; `marks` is all of them now."""

    def __init__(self, item: str, marks: TeacherMarks, typed: bool) -> None:
        super().__init__()
        self.item = item
        self.marks = marks
        self.typed = typed  # the comment: saved a moment later, not at every key


class ItemMarking(Vertical):
    DEFAULT_CSS = """
    ItemMarking { height: auto; margin: 0 0 1 0; }
    ItemMarking > Static { height: auto; }
    ItemMarking .item-title { text-style: bold underline; }
    ItemMarking .section-title { text-style: bold; margin: 1 0 0 0; }
    ItemMarking .learner-text { padding: 0 0 0 2; }
    ItemMarking .marks-heading { margin: 1 0 0 0; text-style: italic; }
    ItemMarking TextArea { height: 3; }
    """

    def __init__(self, lesson: Lesson, answer: Answer) -> None:
        super().__init__()
        self.lesson = lesson
        self.answer = answer
        self.comment = answer.marks.comment

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        en = ctx.lang == "en"
        title = item_title(ctx, self.lesson, self.answer.item, "review.summary")
        yield Static(title, classes="item-title")
        summary = lesson_summary(self.lesson)
        if self.answer.item == SUMMARY and summary is not None:
            for section in summary.sections:
                text = self.answer.texts.get(section.id, "").strip()
                yield Static(section.title_en if en else section.title_zh, classes="section-title")
                yield Static(self._learner_text(text), classes="learner-text")
        else:
            question = next(q for q in quiz_questions(self.lesson) if q.id == self.answer.item)
            yield Static(Content.styled(question.prompt, "dim"))
            text = self.answer.texts.get(self.answer.item, "").strip()
            yield Static(self._learner_text(text), classes="learner-text")
        rubric = rubric_for(self.lesson, self.answer.item)
        verdicts = {claim.id: claim for claim in self.answer.grade.claims}
        found = {m.id: m for m in self.answer.grade.misconceptions}
        marks = self.answer.marks
        yield Static(ctx.t("review.claims"), classes="marks-heading")
        for claim in rubric.claims:
            verdict = verdicts.get(claim.id)
            grader = ctx.t("review.grader_not_met")
            if verdict is not None and verdict.status != "not_found":
                key = _CLAIM_KEYS.get(verdict.status, "review.grader_denied")
                grader = ctx.t(key, evidence=_quoted(verdict.evidence))
            given = marks.claims.get(claim.id)
            state = "" if given is None else ("met" if given else "not_met")
            wording = claim.claim_en if en else claim.claim_zh
            yield MarkToggle(claim.id, CLAIM_STATES, state, wording, grader)
        yield Static(ctx.t("review.misconceptions"), classes="marks-heading")
        for misconception in rubric.misconceptions:
            grader = ctx.t("review.grader_not_found")
            said = found.get(misconception.id)
            if said is not None and said.status in _MISCONCEPTION_KEYS:
                key = _MISCONCEPTION_KEYS[said.status]
                grader = ctx.t(key, evidence=_quoted(said.evidence))
            state = marks.misconceptions.get(misconception.id, "")
            wording = misconception.name_en if en else misconception.name_zh
            toggle = MarkToggle(misconception.id, MISCONCEPTION_STATES, state, wording, grader)
            toggle.add_class("-misconception")
            yield toggle
        yield Static(ctx.t("review.comment", limit=MAX_COMMENT_CHARS), classes="marks-heading")
        yield CappedTextArea(
            self.comment,
            max_length=MAX_COMMENT_CHARS,
            soft_wrap=True,
            show_line_numbers=False,
            compact=True,
        )

    def _learner_text(self, text: str) -> Content:
        """What the learner wrote, printable, never read as markup."""
        if not text:
            return Content.styled(tutor_context(self).t("review.empty"), "dim italic")
        return Content(printable(text, keep_newlines=True))

    def marks(self) -> TeacherMarks:
        claims: dict[str, bool] = {}
        misconceptions: dict[str, str] = {}
        for toggle in self.query(MarkToggle):
            if not toggle.state:
                continue
            if toggle.has_class("-misconception"):
                misconceptions[toggle.key] = toggle.state
            else:
                claims[toggle.key] = toggle.state == "met"
        return TeacherMarks.model_validate(
            {"claims": claims, "misconceptions": misconceptions, "comment": self.comment}
        )

    @on(MarkToggle.Changed)
    def _marked(self, event: MarkToggle.Changed) -> None:
        event.stop()
        self.post_message(MarksChanged(self.answer.item, self.marks(), typed=False))

    @on(TextArea.Changed)
    def _typed(self, event: TextArea.Changed) -> None:
        event.stop()
        if event.text_area.text == self.comment:
            return
        self.comment = event.text_area.text
        self.post_message(MarksChanged(self.answer.item, self.marks(), typed=True))
