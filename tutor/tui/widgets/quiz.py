"""One quiz question of any type, with immediate feedback and every attempt recorded.

Feedback explains the choice the learner made (the content ties each wrong choice to a
misconception), so a wrong answer teaches instead of only scoring. The last attempt is
restored on the next visit, so answers are still there after a restart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, Static, TextArea

from tutor.tui.context import tutor_context
from tutor.tui.rubric import grade
from tutor.tui.widgets.capped_text import CappedTextArea

if TYPE_CHECKING:
    from tutor.content.models import Question, RubricClaim


def parse_number(text: str) -> float | None:
    """Numbers as people type them: "248,320", "248 320", "2.5e5"."""
    cleaned = text.strip().replace(",", "").replace("_", "").replace(" ", "")
    try:
        return float(cleaned)
    except ValueError:
        return None


class QuizQuestion(Vertical):
    DEFAULT_CSS = """
    QuizQuestion { height: auto; margin: 1 0; padding: 0 1; border: round $primary 50%; }
    QuizQuestion > Static { height: auto; }
    QuizQuestion RadioSet { width: 1fr; }
    QuizQuestion TextArea { height: 4; background: $boost; }
    QuizQuestion #submit { margin: 1 0 0 0; }
    QuizQuestion #feedback { margin: 1 0 0 0; }
    """

    def __init__(
        self,
        question: Question,
        number: int,
        lesson_id: str,
        claims: dict[str, RubricClaim],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.question = question
        self.number = number
        self.lesson_id = lesson_id
        self.claims = claims
        self.feedback: list[tuple[str, str]] = []
        self.correct: bool | None = None  # of the last graded answer

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        q = self.question
        yield Static(Content.styled(f"{self.number}. {self._text(q.prompt)}", "bold"))
        if q.type == "single":
            buttons = (RadioButton(self._text(c.text), compact=True) for c in q.choices)
            yield RadioSet(*buttons, id="answer", compact=True)
        elif q.type == "multiple":
            with Vertical(id="answer"):
                for choice in q.choices:
                    yield Checkbox(self._text(choice.text), compact=True)
        elif q.type == "numeric":
            unit = f"({q.unit})" if q.unit else ""
            yield Input(placeholder=ctx.t("quiz.numeric_prompt", unit=unit), id="answer")
        else:
            yield CappedTextArea(id="answer", soft_wrap=True, show_line_numbers=False, compact=True)
        yield Button(ctx.t("quiz.submit"), id="submit", variant="primary", compact=True)
        yield Static(id="feedback")

    def on_mount(self) -> None:
        last = tutor_context(self).store.last_attempt(self.lesson_id, self.question.id)
        if last is not None:
            self._restore(last.answer)
            self._judge(last.answer, record=False)

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
            self.query_one("#answer", TextArea).text = str(answer)

    def current_answer(self) -> Any:
        """The answer as recorded: choice index, list of indices, number text, or text."""
        q = self.question
        if q.type == "single":
            index = self.query_one("#answer", RadioSet).pressed_index
            return None if index < 0 else index
        if q.type == "multiple":
            return [n for n, box in enumerate(self.query(Checkbox)) if box.value]
        if q.type == "numeric":
            return self.query_one("#answer", Input).value
        return self.query_one("#answer", TextArea).text

    @on(Button.Pressed, "#submit")
    @on(Input.Submitted, "#answer")
    def submit(self) -> None:
        self._judge(self.current_answer(), record=True)

    def _judge(self, answer: Any, *, record: bool) -> None:
        ctx = tutor_context(self)
        q = self.question
        if q.type == "single":
            correct, lines = self._judge_single(answer)
        elif q.type == "multiple":
            correct, lines = self._judge_multiple(answer)
        elif q.type == "numeric":
            correct, lines = self._judge_numeric(answer)
        else:
            correct, lines = self._judge_text(answer)
        if correct is None:  # nothing gradable yet: say what is missing, record nothing
            self._show(lines)
            return
        if record:
            ctx.store.record_attempt(self.lesson_id, q.id, answer, correct)
        if correct and q.explain:
            lines.append((self._text(q.explain), ""))
        count = len(ctx.store.attempts(self.lesson_id, q.id))
        lines.append((ctx.t("quiz.attempts", count=count), "dim"))
        self._show(lines)
        self.correct = correct

    def _show(self, lines: list[tuple[str, str]]) -> None:
        self.feedback = lines
        parts: list[str | tuple[str, str]] = []
        for text, style in lines:
            parts += [(text, style), "\n"]
        self.query_one("#feedback", Static).update(Content.assemble(*parts[:-1]))

    def _verdict(self, correct: bool, partly: bool = False) -> tuple[str, str]:
        ctx = tutor_context(self)
        if correct:
            return ctx.t("quiz.correct"), "bold $text-success"
        return ctx.t("quiz.partial" if partly else "quiz.wrong"), "bold $text-error"

    def _judge_single(self, answer: Any) -> tuple[bool | None, list[tuple[str, str]]]:
        ctx = tutor_context(self)
        if answer is None:
            return None, [(ctx.t("quiz.choose_first"), "bold $text-warning")]
        choice = self.question.choices[answer]
        chose = f"{ctx.t('quiz.you_chose')}: {self._text(choice.text)}"
        return choice.correct, [
            self._verdict(choice.correct),
            (f"{chose} — {self._text(choice.explain)}", ""),
        ]

    def _judge_multiple(self, answer: Any) -> tuple[bool | None, list[tuple[str, str]]]:
        ctx = tutor_context(self)
        if not answer:
            return None, [(ctx.t("quiz.choose_first"), "bold $text-warning")]
        chosen = set(answer)
        wanted = {n for n, c in enumerate(self.question.choices) if c.correct}
        correct = chosen == wanted
        lines = [self._verdict(correct, partly=bool(chosen & wanted))]
        for n, choice in enumerate(self.question.choices):
            if n in chosen or n in wanted:
                right = (n in chosen) == (n in wanted)
                mark = "✓" if right else "✗"
                line = f"{mark} {self._text(choice.text)} — {self._text(choice.explain)}"
                lines.append((line, "" if right else "bold"))
        return correct, lines

    def _judge_numeric(self, answer: Any) -> tuple[bool | None, list[tuple[str, str]]]:
        ctx = tutor_context(self)
        q = self.question
        value = parse_number(str(answer))
        if value is None:
            return None, [(ctx.t("quiz.not_a_number", text=answer), "bold $text-warning")]
        assert q.answer is not None and q.tolerance is not None
        correct = abs(value - q.answer) <= q.tolerance
        lines = [self._verdict(correct)]
        if correct:
            lines.append((ctx.t("quiz.expected", answer=f"{q.answer:,g} {q.unit}".strip()), ""))
        return correct, lines

    def _judge_text(self, answer: Any) -> tuple[bool | None, list[tuple[str, str]]]:
        ctx = tutor_context(self)
        if not str(answer).strip():
            return None, [(ctx.t("summary.empty"), "bold $text-warning")]
        claims = [self.claims[c] for c in self.question.rubric if c in self.claims]
        result = grade(str(answer), claims)
        lines = [self._verdict(result.complete, partly=bool(result.covered))]
        for claim in result.covered:
            lines.append((ctx.t("quiz.covered", claim=self._claim(claim)), "$text-success"))
        for claim in result.missing:
            lines.append((ctx.t("quiz.missing", claim=self._claim(claim)), "bold"))
        return result.complete, lines

    def _claim(self, claim: RubricClaim) -> str:
        return claim.claim_zh if tutor_context(self).lang == "zh" else claim.claim_en

    def plain_text(self) -> str:
        q = self.question
        lines = [f"{self.number}. {self._text(q.prompt)}"]
        lines += [f"  {n}) {self._text(c.text)}" for n, c in enumerate(q.choices, 1)]
        lines += [text for text, _style in self.feedback]
        return "\n".join(lines)
