"""The learner's lesson summary: four sections, saved as they type, graded on submit.

The widget never touches the progress store: the screen hands it what was saved
(SavedSummary), every change is posted (SummaryDraftChanged) for the screen to save within
a second (tutor.tui.screens.saving), and the screen says whether the save worked, so the
status line never claims a save that failed. After submitting (SummarySubmitted), the
grader reads the sections by their headings (`summary_answer`): which key claims the summary
makes, denies or misses, which misconceptions it states, and which ones 纠正了的误解 lists as
fixed; 还没解决的问题 asserts nothing (RubricFeedback). The learner ticks the claims they
covered, and the reference appears.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Markdown, Static, TextArea

from tutor.content.grade import Grade, summary_answer, summary_rubric
from tutor.tui.context import tutor_context
from tutor.tui.first_screen import Later
from tutor.tui.messages import Saving, SummaryDraftChanged, SummarySubmitted
from tutor.tui.widgets.asking import still_shown
from tutor.tui.widgets.capped_text import CappedTextArea
from tutor.tui.widgets.reveal import RevealsFeedback
from tutor.tui.widgets.rubric_feedback import RubricFeedback

if TYPE_CHECKING:
    from tutor.content.models import Summary


@dataclass(frozen=True, slots=True)
class SavedSummary:
    """The learner's summary as the screen read it from the store."""

    texts: dict[str, str] = field(default_factory=dict)  # section id -> text
    submitted: bool = False
    guest: bool = False  # a guest's store keeps nothing past the session
    ticked: tuple[str, ...] = ()  # the reference claims ticked in the self-check


class SummaryEditor(RevealsFeedback):
    DEFAULT_CSS = """
    SummaryEditor { height: auto; margin: 1 0; }
    SummaryEditor > Static { height: auto; }
    SummaryEditor .section-title { margin: 1 0 0 0; text-style: bold; }
    SummaryEditor TextArea { height: 5; background: $boost; }
    SummaryEditor #submit-summary { margin: 1 0; }
    SummaryEditor #reference { display: none; }
    SummaryEditor.-submitted #reference { display: block; }
    """

    def __init__(
        self,
        summary: Summary,
        lesson_id: str,
        saved: SavedSummary | None = None,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.summary = summary
        self.lesson_id = lesson_id
        self.saved_summary = saved or SavedSummary()
        self._texts = {s.id: self.saved_summary.texts.get(s.id, "") for s in summary.sections}
        self.result: Grade | None = None
        self._latest: SummaryDraftChanged | None = None  # the last change posted

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield Static(Content.styled(ctx.t("summary.title"), "bold underline"))
        for section in self.summary.sections:
            title = section.title_zh if ctx.lang == "zh" else section.title_en
            yield Static(title, classes="section-title")
            yield CappedTextArea(
                self._texts[section.id],
                id=f"section-{section.id}",
                soft_wrap=True,
                show_line_numbers=False,
                compact=True,
            )
        yield Static(id="status")
        yield Button(ctx.t("summary.submit"), id="submit-summary", variant="primary", compact=True)
        yield Static(id="grade")
        yield RubricFeedback(
            summary_rubric(self.lesson_id, self.summary), self.lesson_id, self.saved_summary.ticked
        )
        reference = f"### {ctx.t('summary.reference')}\n\n{ctx.fill_facts(self.summary.reference)}"
        # Shown once the learner submits: built right after the page's first frame (Later), so
        # it does not slow the turn to this page. open_links=False: a click would run the
        # server's browser in a served session.
        yield Later(Markdown(reference, id="reference", open_links=False))

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        ctx = tutor_context(self)
        self._status(ctx.t("summary.guest") if self.saved_summary.guest else "")
        if self.saved_summary.submitted:
            self._grade(submitted_now=False)

    def texts(self) -> dict[str, str]:
        return dict(self._texts)

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        section = (event.text_area.id or "").removeprefix("section-")
        if section not in self._texts or self._texts[section] == event.text_area.text:
            return
        self._texts[section] = event.text_area.text
        self._status(tutor_context(self).t("summary.saving"))
        self._latest = SummaryDraftChanged(self, self.lesson_id, section, self._texts[section])
        self.post_message(self._latest)

    def saved(self, message: Saving, ok: bool) -> None:
        """The screen's answer to a draft or a submission: the status line says what is so."""
        ctx = tutor_context(self)
        if isinstance(message, SummaryDraftChanged) and message is not self._latest:
            return  # a newer change is still on its way: "saving…" is what is true
        submitted = isinstance(message, SummarySubmitted)
        if not ok:
            self._status(ctx.t("summary.submit_not_saved" if submitted else "summary.not_saved"))
        elif submitted:
            self._status(ctx.t("summary.submitted"))
        else:
            self._status(ctx.t("summary.guest" if self.saved_summary.guest else "summary.saved"))

    @on(Button.Pressed, "#submit-summary")
    def submit(self) -> None:
        ctx = tutor_context(self)
        texts = self.texts()
        if not any(text.strip() for text in texts.values()):
            self._status(ctx.t("summary.empty"))
            return
        self.post_message(SummarySubmitted(self, self.lesson_id, texts))
        self._grade(submitted_now=True)

    def _grade(self, *, submitted_now: bool) -> None:
        """`submitted_now` travels as the Graded message's `record` (the screen records the
        submission itself, from SummarySubmitted): the findings are then scrolled to."""
        answer = summary_answer(self.summary, self.texts())
        self.query_one(RubricFeedback).grade(answer, record=submitted_now)

    def on_rubric_feedback_graded(self, message: RubricFeedback.Graded) -> None:
        self.result = message.result
        self.query_one("#grade", Static).update(Content.assemble(*self._grade_parts()))
        self.add_class("-submitted")
        if message.record:  # not a summary shown graded as the page opens
            self.reveal_feedback()

    def feedback_parts(self) -> list[Widget]:
        return [self.query_one("#grade"), self.query_one(RubricFeedback)]

    def _grade_parts(self) -> list[str | tuple[str, str]]:
        ctx = tutor_context(self)
        assert self.result is not None
        score = ctx.t("summary.score", covered=len(self.result.met), total=len(self.result.claims))
        parts: list[str | tuple[str, str]] = [(f"{ctx.t('summary.feedback')} · ", "bold")]
        parts.append((score, "bold"))
        if self.result.fixed:
            parts.append((" · " + ctx.t("summary.fixed", count=len(self.result.fixed)), "bold"))
        return parts

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(Content.styled(text, "dim italic"))

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        lines = [ctx.t("summary.title")]
        texts = self.texts()
        for section in self.summary.sections:
            title = section.title_zh if ctx.lang == "zh" else section.title_en
            lines.append(f"{title}: {texts[section.id]}")
        if self.result is not None:
            lines.append("".join(p if isinstance(p, str) else p[0] for p in self._grade_parts()))
            lines.append(self.query_one(RubricFeedback).plain_text())
            lines.append(f"{ctx.t('summary.reference')}: {ctx.fill_facts(self.summary.reference)}")
        return "\n".join(lines)
