"""One quiz question of any type, with immediate feedback and every attempt recorded.

Feedback explains every option, not only the one chosen (the content ties each wrong
choice to a misconception), and tells a missed correct option from a wrong tick, so a
wrong answer teaches instead of only scoring. Numbers are read as people write them (√2,
2**0.5); free text is graded on what it asserts (RubricFeedback). The last attempt is
restored on the next visit, so answers are still there after a restart; so is an answer
typed or ticked and not submitted yet (a draft, saved as the learner goes: QuizDraftChanged).

The widget never touches the progress store: the screen hands it what was saved
(SavedAnswer) and saves each draft and each graded answer it posts (QuestionAnswered, which
replaces the draft), then says whether
that worked, so a failed save is told here too, beside the answer it concerns.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, Static, TextArea

from tutor.content.grade import number_as_stored, read_number, shown_number
from tutor.progress.store import MAX_TEXT_CHARS
from tutor.tui.context import tutor_context
from tutor.tui.messages import QuestionAnswered, QuizDraftChanged, Saving
from tutor.tui.widgets.asking import still_shown
from tutor.tui.widgets.capped_text import CappedTextArea
from tutor.tui.widgets.quiz_choices import PICKED, Chosen, MultipleChoice, Option, SingleChoice
from tutor.tui.widgets.reveal import RevealsFeedback
from tutor.tui.widgets.rubric_feedback import RubricFeedback, styled_lines

if TYPE_CHECKING:
    from tutor.content.grade import Rubric
    from tutor.content.models import Choice, Question

QUOTED_INPUT = 40  # characters of a refused input quoted back to the learner
# what each kind of question's controls hold before anything is typed or ticked
_EMPTY: dict[str, Any] = {"single": None, "multiple": [], "numeric": "", "text": ""}
_PLAIN_NUMBER = re.compile(r"[+-]?[\d,_ ]*\.?\d+(?:[eE][+-]?\d+)?")


@dataclass(frozen=True, slots=True)
class SavedAnswer:
    """What the learner saved for one question, as the screen read it from the store."""

    last: Any = None  # the last recorded answer; None before the first
    attempts: int = 0  # how many are recorded
    ticked: tuple[str, ...] = ()  # the reference claims ticked in the self-check
    draft: Any = None  # typed or ticked since, not submitted; None when there is none


class QuizQuestion(RevealsFeedback):
    DEFAULT_CSS = """
    QuizQuestion { height: auto; margin: 1 0; padding: 0 1; border: round $primary 50%; }
    QuizQuestion > Static { height: auto; }
    QuizQuestion RadioSet { width: 1fr; }
    QuizQuestion TextArea { height: 4; background: $boost; }
    QuizQuestion #submit { margin: 1 0 0 0; }
    /* in the accent colour only with the focus: a lit button read as the one Enter presses */
    QuizQuestion #submit:focus { background: $primary; color: $text; text-style: bold; }
    QuizQuestion #feedback { margin: 1 0 0 0; }
    """

    def __init__(
        self,
        question: Question,
        number: int,
        lesson_id: str,
        rubric: Rubric | None = None,
        *,
        saved: SavedAnswer | None = None,
        id: str | None = None,
    ) -> None:
        """`rubric`: what a text question is graded against (`grade.rubric_for`); `saved`:
        what the learner saved before, restored on mount."""
        super().__init__(id=id)
        self.question = question
        self.number = number
        self.lesson_id = lesson_id
        self.rubric = rubric
        self.saved_answer = saved or SavedAnswer()
        self.attempts = self.saved_answer.attempts  # this visit's attempts count too
        self.feedback: list[tuple[str, str]] = []
        self.correct: bool | None = None  # of the last graded answer
        # the answer as the store keeps it (draft, else last attempt): a change from it is
        # a new draft, a restore into the controls is not
        saved_answer = self.saved_answer
        kept = saved_answer.last if saved_answer.draft is None else saved_answer.draft
        self._kept: Any = _EMPTY.get(question.type) if kept is None else kept

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        q = self.question
        yield Static(Content.styled(f"{self.number}. {self._text(q.prompt)}", "bold"))
        if q.type == "single":
            buttons = (Option(self._text(c.text), compact=True) for c in q.choices)
            yield SingleChoice(*buttons, id="answer", compact=True)
        elif q.type == "multiple":
            with Vertical(id="answer"):
                for choice in q.choices:
                    yield MultipleChoice(self._text(choice.text), compact=True)
        elif q.type == "numeric":
            unit = f"({q.unit})" if q.unit else ""
            prompt = ctx.t("quiz.numeric_prompt", unit=unit)
            yield Input(placeholder=prompt, max_length=MAX_TEXT_CHARS, id="answer")
        else:
            yield CappedTextArea(id="answer", soft_wrap=True, show_line_numbers=False, compact=True)
        yield Button(ctx.t("quiz.submit"), id="submit", compact=True)
        yield Static(id="feedback")
        if q.type == "text" and self.rubric is not None:
            ticked = self.saved_answer.ticked
            yield RubricFeedback(self.rubric, self.lesson_id, ticked, id="rubric-feedback")

    def least_lines(self, width: int) -> int:
        """Fewest lines of the question as its styles draw it: a margin line, the frame,
        the prompt at full width, the answer field (a line per choice, a framed line for a
        number, four lines of text), and the submit button and feedback with their
        margins."""
        q = self.question
        prompt = math.ceil(cell_len(f"{self.number}. {self._text(q.prompt)}") / max(width, 1))
        if q.type in ("single", "multiple"):
            answer = len(q.choices)
        else:
            answer = 3 if q.type == "numeric" else 4
        return 1 + 2 + prompt + answer + 2 + 1

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        last, draft = self.saved_answer.last, self.saved_answer.draft
        if last is not None or draft is not None:  # the draft is newer than the attempt
            self._restore(last if draft is None else draft)
        if last is not None:
            self._judge(last, record=False)

    def _text(self, text: str) -> str:
        return tutor_context(self).fill_facts(text)

    def _restore(self, answer: Any) -> None:
        """Put a recorded answer back into the controls."""
        q = self.question
        if q.type == "single" and isinstance(answer, int):
            buttons = list(self.query(RadioButton))
            if 0 <= answer < len(buttons):
                buttons[answer].value = True
        elif q.type == "multiple" and isinstance(answer, list):
            for index, box in enumerate(self.query(Checkbox)):
                box.value = index in answer
        elif q.type == "numeric":
            self.query_one("#answer", Input).value = str(answer)
        elif q.type == "text":
            field = self.query_one("#answer", TextArea)
            field.text = str(answer)
            field.move_cursor(field.document.end)  # the learner goes on where it ends

    def current_answer(self) -> Any:
        """The answer as typed or ticked: choice index, list of indices, number text, or
        text (a number is recorded as the number read: `_judge`)."""
        q = self.question
        if q.type == "single":
            index = self.query_one("#answer", RadioSet).pressed_index
            return None if index < 0 else index
        if q.type == "multiple":
            return [n for n, box in enumerate(self.query(Checkbox)) if box.value]
        if q.type == "numeric":
            return self.query_one("#answer", Input).value
        return self.query_one("#answer", TextArea).text

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(RadioSet.Changed)
    @on(Checkbox.Changed)
    def _answer_changed(self) -> None:
        """Typed or ticked: a draft for the screen to keep, unless the answer is what the
        store already has (a restore, the self-check's ticks, text typed back)."""
        answer = self.current_answer()
        if answer != self._kept:
            self._kept = answer
            self.post_message(QuizDraftChanged(self, self.lesson_id, self.question.id, answer))

    @on(Button.Pressed, "#submit")
    @on(Input.Submitted, "#answer")
    def submit(self) -> None:
        self._judge(self.current_answer(), record=True)

    @on(Chosen)
    def _chosen(self, message: Chosen) -> None:
        message.stop()
        answer = self.current_answer() if message.index is None else message.index
        self._judge(answer, record=True)

    def _judge(self, answer: Any, *, record: bool) -> None:
        q = self.question
        if q.type == "single":
            correct, lines = self._judge_single(answer)
        elif q.type == "multiple":
            correct, lines = self._judge_multiple(answer)
        elif q.type == "numeric":
            value = read_number(str(answer))
            correct, lines = self._judge_numeric(str(answer).strip(), value)
            answer = answer if value is None else number_as_stored(value)
        else:
            self._judge_text(answer, record=record)
            return
        self._conclude(answer, correct, lines, record=record)

    def _conclude(
        self, answer: Any, correct: bool | None, lines: list[tuple[str, str]], *, record: bool
    ) -> None:
        """Show the verdict and, when it is one, ask the screen to record the attempt."""
        ctx = tutor_context(self)
        q = self.question
        if correct is None:  # nothing gradable yet: say what is missing, record nothing
            self._show(lines)
            return
        if record:
            self.attempts += 1
            self._kept = answer
            self.post_message(QuestionAnswered(self, self.lesson_id, q.id, answer, correct))
        if correct and q.explain:
            lines.append((self._text(q.explain), ""))
        lines.append((ctx.t("quiz.attempts", count=self.attempts), "dim"))
        self._show(lines)
        self.correct = correct
        if record:
            self.reveal_feedback()

    def feedback_parts(self) -> list[Widget]:
        return [self.query_one("#feedback"), *self.query(RubricFeedback)]

    def saved(self, message: Saving, ok: bool) -> None:
        """The screen's answer to QuestionAnswered: a failed save is said by the answer.
        (A draft that could not be kept is the screen's notification alone.)"""
        if not ok and isinstance(message, QuestionAnswered):
            self._show(
                [*self.feedback, (tutor_context(self).t("quiz.not_saved"), "bold $text-error")]
            )

    def _show(self, lines: list[tuple[str, str]]) -> None:
        self.feedback = lines
        self.query_one("#feedback", Static).update(styled_lines(lines))

    def _verdict(self, correct: bool, partly: bool = False) -> tuple[str, str]:
        ctx = tutor_context(self)
        if correct:
            return ctx.t("quiz.correct"), "bold $text-success"
        return ctx.t("quiz.partial" if partly else "quiz.wrong"), "bold $text-error"

    def _judge_single(self, answer: Any) -> tuple[bool | None, list[tuple[str, str]]]:
        """The chosen option explained, then the right one, then every other."""
        ctx = tutor_context(self)
        if answer is None:
            return None, [(ctx.t("quiz.choose_first"), "bold $text-warning")]
        choices = self.question.choices
        chosen = choices[answer]
        lines = [
            self._verdict(chosen.correct),
            (f"{ctx.t('quiz.you_chose')}: {self._option(chosen)}", ""),
        ]
        for choice in choices:
            if choice is chosen:
                continue
            if choice.correct:
                lines.append((ctx.t("quiz.expected", answer=self._option(choice)), "bold"))
            else:
                lines.append((f"· {self._option(choice)}", "dim"))
        return chosen.correct, lines

    def _judge_multiple(self, answer: Any) -> tuple[bool | None, list[tuple[str, str]]]:
        """Every option explained; a correct option left out is "missed", not "wrong"."""
        ctx = tutor_context(self)
        if not answer:
            return None, [(ctx.t("quiz.choose_first"), "bold $text-warning")]
        chosen = set(answer)
        wanted = {n for n, c in enumerate(self.question.choices) if c.correct}
        correct = chosen == wanted
        lines = [self._verdict(correct, partly=bool(chosen & wanted))]
        for n, choice in enumerate(self.question.choices):
            if n in chosen and n in wanted:
                lines.append((f"✓ {self._option(choice)}", "$text-success"))
            elif n in chosen:
                line = ctx.t("quiz.wrong_pick", option=self._option(choice))
                lines.append((line, "bold $text-error"))
            elif n in wanted:
                line = ctx.t("quiz.missed", option=self._option(choice))
                lines.append((line, "bold $text-warning"))
            else:
                lines.append((f"· {self._option(choice)}", "dim"))
        return correct, lines

    def _option(self, choice: Choice) -> str:
        return f"{self._text(choice.text)} — {self._text(choice.explain)}"

    def _judge_numeric(
        self, typed: str, value: float | None
    ) -> tuple[bool | None, list[tuple[str, str]]]:
        ctx = tutor_context(self)
        q = self.question
        if value is None:
            quoted = typed if len(typed) <= QUOTED_INPUT else typed[:QUOTED_INPUT] + "…"
            return None, [(ctx.t("quiz.not_a_number", text=quoted), "bold $text-warning")]
        assert q.answer is not None and q.tolerance is not None
        correct = abs(value - q.answer) <= q.tolerance
        lines = [self._verdict(correct)]
        if not _PLAIN_NUMBER.fullmatch(typed):  # an expression: say what it came to
            lines.append((f"{typed} ≈ {shown_number(value, q.tolerance)}", ""))
        if correct:
            expected = f"{shown_number(q.answer, q.tolerance)} {q.unit}".strip()
            lines.append((ctx.t("quiz.expected", answer=expected), ""))
        elif why := self._why_wrong(typed, value):
            lines.append((why, ""))
        return correct, lines

    def _why_wrong(self, typed: str, value: float) -> str:
        """The one sentence a wrong number gets: the author's for a tempting one, the
        answer's square, the answer with too few decimals, else how the answer comes."""
        ctx = tutor_context(self)
        q = self.question
        assert q.answer is not None and q.tolerance is not None
        for mistake in q.mistakes:
            if abs(value - mistake.value) <= q.tolerance:
                return self._text(mistake.explain)
        if abs(value - q.answer**2) <= q.tolerance * max(1.0, 2 * abs(q.answer)):
            return ctx.t("quiz.numeric.squared", typed=typed)
        asked = shown_number(q.answer, q.tolerance)
        decimals = len(asked.partition(".")[2])
        if any(value == round(q.answer, fewer) for fewer in range(decimals)):
            return ctx.t("quiz.numeric.decimals", typed=typed, decimals=decimals, expected=asked)
        return self._text(q.explain)

    def _judge_text(self, answer: Any, *, record: bool) -> None:
        ctx = tutor_context(self)
        if not str(answer).strip():
            self._show([(ctx.t("summary.empty"), "bold $text-warning")])
            return
        self.query_one(RubricFeedback).grade(str(answer), record=record)

    def on_rubric_feedback_graded(self, message: RubricFeedback.Graded) -> None:
        result = message.result
        verdict = self._verdict(result.complete, partly=bool(result.met))
        self._conclude(message.text, result.complete, [verdict], record=message.record)

    def plain_text(self) -> str:
        q = self.question
        lines = [f"{self.number}. {self._text(q.prompt)}"]
        if q.choices:
            picked, not_picked = PICKED[q.type]
            answer = self.current_answer()
            chosen = answer if isinstance(answer, list) else [answer]
            lines += [
                f"  {n}) {picked if n - 1 in chosen else not_picked} {self._text(c.text)}"
                for n, c in enumerate(q.choices, 1)
            ]
        lines += [text for text, _style in self.feedback]
        for feedback in self.query(RubricFeedback):
            lines.append(feedback.plain_text())
        return "\n".join(lines)
