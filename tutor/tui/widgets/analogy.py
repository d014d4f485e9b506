"""a − b + c ≈ ?: vector arithmetic on the table's rows, before or after training.

The classic king − man + woman ≈ queen is an intuition with its own evidence level; here
the learner runs the arithmetic on our small model and sees how well (or badly) it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Static

from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking, still_shown
from tutor.tui.widgets.beside import BesideAnswer, ask_beside, beside_lines, beside_view
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.field import started_choice, started_text
from tutor.words.refusals import say_or_model_error

if TYPE_CHECKING:
    from tutor.content.widgets import AnalogyWidget
    from tutor.core.model import ProjectModel
    from tutor.core.similarity import Neighbour

STAGES = ["after", "before"]  # the model trained, then at its random start


@dataclass(frozen=True, slots=True)
class Solved:
    terms: tuple[str, str, str]
    stage: str
    found: list[Neighbour]
    error: str = ""


def solve(
    ctx: TutorContext, terms: tuple[str, str, str], stage: str, k: int, beside: bool = False
) -> Solved:
    """a − b + c's nearest rows in the stage's table, or why not (in a worker); on the
    lesson's own model where a real one is shown `beside`."""
    from tutor.core.similarity import analogy

    models = ctx.lesson_models if beside else ctx.models
    try:
        return Solved(terms, stage, analogy(models.get(), *terms, stage=stage, k=k))
    except (ValueError, OSError) as exc:
        return Solved(terms, stage, [], say_or_model_error(ctx, exc))


class AnalogyDemo(Asking, Vertical):
    DEFAULT_CSS = """
    AnalogyDemo { height: auto; }
    AnalogyDemo Horizontal { height: auto; }
    AnalogyDemo Input { width: 1fr; }
    AnalogyDemo .op { width: 3; padding: 0 1; }
    AnalogyDemo Button { min-width: 8; }
    """

    def __init__(self, config: AnalogyWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.found: list[Neighbour] = []
        self.error = ""
        self.terms = (config.a, config.b, config.c)
        self.stage = "after"
        self.beside: BesideAnswer | None = None

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        with Horizontal():
            yield Input(started_text(self, "a", self.config.a), id="a")
            yield Static("−", classes="op")
            yield Input(started_text(self, "b", self.config.b), id="b")
            yield Static("+", classes="op")
            yield Input(started_text(self, "c", self.config.c), id="c")
            yield Button(ctx.t("analogy.run"), id="run", compact=True)
        stages = [ctx.t(f"heat.stage.{stage}") for stage in STAGES]
        index = started_choice(self, "stage", STAGES)
        yield ChoiceBar(STAGES, stages, index=index, id="stage")
        yield Static(ctx.t("working"), id="result")
        if self.config.beside:  # with no real model, how to open one (nothing to ask)
            yield Static(beside_view(ctx, None), id="beside")

    def on_mount(self) -> None:
        self.call_after_refresh(self.compute)

    @on(Input.Submitted)
    @on(Button.Pressed, "#run")
    @on(ChoiceBar.Changed, "#stage")
    def compute(self) -> None:
        if not still_shown(self):  # called after a refresh that came after the page left
            return
        terms = tuple(self.query_one(f"#{name}", Input).value.strip() for name in "abc")
        stage = self.query_one("#stage", ChoiceBar).value
        ctx, k, beside = tutor_context(self), self.config.k, self.config.beside
        question = (terms[0], terms[1], terms[2])
        self.ask(lambda: solve(ctx, question, stage, k, beside), self._solved)
        # its own topic: the lesson's answer never waits for a big model
        if beside and ctx.beside_models is not None:

            def real(model: ProjectModel) -> list[Neighbour]:
                from tutor.core.similarity import analogy

                return analogy(model, *question, k=k)

            self.ask(lambda: ask_beside(ctx, real), self._beside, topic="beside")

    def _solved(self, solved: Solved) -> None:
        self.terms, self.stage = solved.terms, solved.stage
        self.found, self.error = solved.found, solved.error
        self.query_one("#result", Static).update(self._view())

    def _beside(self, answer: BesideAnswer | None) -> None:
        self.beside = answer
        self.query_one("#beside", Static).update(beside_view(tutor_context(self), answer))

    def _lines(self) -> list[str]:
        ctx = tutor_context(self)
        a, b, c = self.terms
        head = ctx.t("analogy.title", a=a, b=b, c=c)
        head += " · " + ctx.t("analogy.stage", stage=ctx.t(f"heat.stage.{self.stage}"))
        if self.error:
            return [head, self.error]
        found = [f"{n.rank}. {n.piece} {n.score:.3f}" for n in self.found]
        return [head, ctx.t("analogy.result", k=len(self.found)) + ": " + "  ".join(found)]

    def _view(self) -> Content:
        head, body = self._lines()
        style = "bold $text-error" if self.error else ""
        return Content.assemble((head + "\n", "bold"), (body, style))

    def plain_text(self) -> str:
        beside = beside_lines(tutor_context(self), self.beside) if self.config.beside else []
        return "\n".join([*self._lines(), *beside])
