"""A free-text answer's feedback: what the grader found, then the learner's own check.

The grader (tutor/content/grade.py) says which claims the answer asserts (quoting the
clause it found), which it denies (quoting the clause that negates it), which it cannot
decide, and which misconceptions it states or lists as fixed, each held one with a pointed
correction. A grader can still miss a paraphrase, so an unmet claim reads "not found", not
✗, and the reference claims follow as checkboxes: the learner ticks the ones they
covered, as courses with free-text answers do, and the ticks are saved: posted
(SelfCheckMarked) for the screen to save, which answers whether it could. Grading runs in
a worker: the first answer loads jieba (~0.3 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Checkbox, Static

from tutor.content.grade import Grade, Rubric, grade
from tutor.tui.context import tutor_context
from tutor.tui.messages import Saving, SelfCheckMarked
from tutor.words.refusals import inner_quotes

if TYPE_CHECKING:
    from tutor.content.models import Misconception, RubricClaim


def styled_lines(lines: list[tuple[str, str]]) -> Content:
    """Feedback lines, each with its style, as one Content."""
    parts: list[str | tuple[str, str]] = []
    for text, style in lines:
        parts += [(text, style), "\n"]
    return Content.assemble(*parts[:-1])


class RubricFeedback(Vertical):
    DEFAULT_CSS = """
    RubricFeedback { height: auto; display: none; }
    RubricFeedback.-shown { display: block; }
    RubricFeedback > Static { height: auto; }
    RubricFeedback #self-check-title { margin: 1 0 0 0; text-style: italic; }
    RubricFeedback #self-check { height: auto; }
    """

    class Graded(Message):
        """An answer was graded; bubbles to the question or summary that asked."""

        def __init__(self, result: Grade, text: str, request: int, record: bool) -> None:
            super().__init__()
            self.result = result
            self.text = text
            self.request = request
            self.record = record

    def __init__(
        self,
        rubric: Rubric,
        lesson_id: str,
        ticked: tuple[str, ...] = (),
        *,
        id: str | None = None,
    ) -> None:
        """`ticked`: the claims the learner ticked before, as the screen read them."""
        super().__init__(id=id)
        self.rubric = rubric
        self.lesson_id = lesson_id
        self.ticked = ticked
        self.result: Grade | None = None
        self.lines: list[tuple[str, str]] = []
        self._request = 0

    def compose(self) -> ComposeResult:
        yield Static(id="findings")
        yield Static(id="self-check-title")
        yield Vertical(id="self-check")

    def grade(self, text: str, *, record: bool) -> None:
        """Grade `text` in the background; `record` travels to the Graded message."""
        self._request += 1
        self.add_class("-shown")
        self._show([(tutor_context(self).t("quiz.grading"), "dim italic")])
        self._grade(text, self._request, record)

    @work(thread=True, group="rubric")
    def _grade(self, text: str, request: int, record: bool) -> None:
        self.post_message(self.Graded(grade(self.rubric, text), text, request, record))

    async def on_rubric_feedback_graded(self, message: Graded) -> None:
        """Shown, self-check included, before the message goes on to the question, which
        then scrolls all of it into view."""
        if message.request != self._request:  # a newer answer is being graded
            message.stop()
            return
        self.result = message.result
        self._show(self._findings(message.result))
        await self._offer_self_check()

    def _findings(self, result: Grade) -> list[tuple[str, str]]:
        """A met claim with the clause found; an unmet one as "not found, tick it if you
        wrote it" (the grader can miss a paraphrase); ✗ only where a clause negates it."""
        ctx = tutor_context(self)
        lines: list[tuple[str, str]] = []
        for verdict in result.claims:
            claim = self._claim_text(self.rubric.claim(verdict.id))
            evidence = inner_quotes(verdict.evidence)
            if verdict.status == "met":
                lines.append((ctx.t("quiz.covered", claim=claim), "$text-success"))
                lines.append((ctx.t("quiz.found", evidence=evidence), "dim"))
            elif verdict.status == "withdrawn":
                name, _correction = self._misconception_text(
                    self.rubric.misconception(verdict.contradicted_by)
                )
                said = ctx.t("quiz.contradicted", evidence=evidence, name=name, claim=claim)
                lines.append((said, "bold"))
            elif verdict.status == "denied":
                lines.append((ctx.t("quiz.denied", evidence=evidence, claim=claim), "bold"))
            elif verdict.status == "undecided":
                lines.append((ctx.t("quiz.undecided", evidence=evidence, claim=claim), ""))
            else:
                lines.append((ctx.t("quiz.missing", claim=claim), ""))
        for found in result.fixed:
            name, _correction = self._misconception_text(self.rubric.misconception(found.id))
            lines.append((ctx.t("quiz.fixed", name=name), "$text-success"))
        for found in result.matched:
            misconception = self.rubric.misconception(found.id)
            name, correction = self._misconception_text(misconception)
            said = ctx.t("quiz.misconception", name=name, evidence=inner_quotes(found.evidence))
            lines += [(said, "bold $text-warning"), (f"  → {correction}", "")]
        return lines

    async def _offer_self_check(self) -> None:
        """The reference claims as checkboxes, once, ticked as the learner last left them."""
        box = self.query_one("#self-check", Vertical)
        if box.children:
            return
        ctx = tutor_context(self)
        ticked = set(self.ticked)
        self.query_one("#self-check-title", Static).update(ctx.t("quiz.self_check"))
        await box.mount_all(
            Checkbox(
                self._claim_text(claim), claim.id in ticked, compact=True, id=f"check-{claim.id}"
            )
            for claim in self.rubric.claims
        )

    @on(Checkbox.Changed, "#self-check Checkbox")
    def _ticked(self, event: Checkbox.Changed) -> None:
        event.stop()
        boxes = self.query("#self-check Checkbox").results(Checkbox)
        ticked = {box.id for box in boxes if box.value}
        claims = [claim.id for claim in self.rubric.claims if f"check-{claim.id}" in ticked]
        self.ticked = tuple(claims)
        self.post_message(SelfCheckMarked(self, self.lesson_id, self.rubric.item, claims))

    def saved(self, message: Saving, ok: bool) -> None:
        """The screen's answer to SelfCheckMarked: the title no longer says "saved"."""
        key = "quiz.self_check" if ok else "quiz.self_check_unsaved"
        self.query_one("#self-check-title", Static).update(tutor_context(self).t(key))

    def _claim_text(self, claim: RubricClaim) -> str:
        return claim.claim_zh if tutor_context(self).lang == "zh" else claim.claim_en

    def _misconception_text(self, misconception: Misconception) -> tuple[str, str]:
        if tutor_context(self).lang == "zh":
            return misconception.name_zh, misconception.correction_zh
        return misconception.name_en, misconception.correction_en

    def _show(self, lines: list[tuple[str, str]]) -> None:
        self.lines = lines
        self.query_one("#findings", Static).update(styled_lines(lines))

    def plain_text(self) -> str:
        lines = [text for text, _style in self.lines]
        boxes = list(self.query("#self-check Checkbox").results(Checkbox))
        if boxes:
            lines.append(tutor_context(self).t("quiz.self_check"))
            lines += [f"[{'x' if box.value else ' '}] {box.label}" for box in boxes]
        return "\n".join(lines)
