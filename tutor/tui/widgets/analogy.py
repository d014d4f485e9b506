"""a − b + c ≈ ?: vector arithmetic on the table's rows, before or after training.

The classic king − man + woman ≈ queen is an intuition with its own evidence level; here
the learner runs the arithmetic on our small model and sees how well (or badly) it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.choice import ChoiceBar

if TYPE_CHECKING:
    from tutor.content.widgets import AnalogyWidget
    from tutor.core.similarity import Neighbour


class AnalogyDemo(Vertical):
    DEFAULT_CSS = """
    AnalogyDemo { height: auto; }
    AnalogyDemo Horizontal { height: auto; }
    AnalogyDemo Input { width: 1fr; }
    AnalogyDemo .op { width: 3; padding: 0 1; }
    AnalogyDemo Button { min-width: 8; }
    """

    class Answered(Message):
        def __init__(
            self,
            terms: tuple[str, str, str],
            stage: str,
            found: list[Neighbour],
            error: str,
            request: int,
        ) -> None:
            super().__init__()
            self.terms = terms
            self.stage = stage
            self.found = found
            self.error = error
            self.request = request

    def __init__(self, config: AnalogyWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.found: list[Neighbour] = []
        self.error = ""
        self.terms = (config.a, config.b, config.c)
        self.stage = "after"
        self._request = 0
        self._shown: int | None = None  # the request whose answer is on screen

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        with Horizontal():
            yield Input(self.config.a, id="a")
            yield Static("−", classes="op")
            yield Input(self.config.b, id="b")
            yield Static("+", classes="op")
            yield Input(self.config.c, id="c")
            yield Button(ctx.t("analogy.run"), id="run", compact=True)
        stages = [ctx.t("heat.stage.after"), ctx.t("heat.stage.before")]
        yield ChoiceBar(["after", "before"], stages, id="stage")
        yield Static(ctx.t("working"), id="result")

    def on_mount(self) -> None:
        self.call_after_refresh(self.compute)

    @on(Input.Submitted)
    @on(Button.Pressed, "#run")
    @on(ChoiceBar.Changed, "#stage")
    def compute(self) -> None:
        terms = tuple(self.query_one(f"#{name}", Input).value.strip() for name in "abc")
        stage = self.query_one("#stage", ChoiceBar).value
        self._request += 1
        self._solve((terms[0], terms[1], terms[2]), stage, self.config.k, self._request)

    @property
    def loading(self) -> bool:
        return self._shown != self._request

    @work(thread=True, exclusive=True, group="analogy")
    def _solve(self, terms: tuple[str, str, str], stage: str, k: int, request: int) -> None:
        from tutor.core.similarity import analogy

        ctx = tutor_context(self)
        try:
            found = analogy(ctx.models.get(), *terms, stage=stage, k=k)
        except (ValueError, OSError) as exc:
            self.post_message(self.Answered(terms, stage, [], str(exc), request))
            return
        self.post_message(self.Answered(terms, stage, found, "", request))

    def on_analogy_demo_answered(self, message: Answered) -> None:
        message.stop()
        if message.request != self._request:
            return
        self._shown = message.request
        self.terms, self.stage = message.terms, message.stage
        self.found, self.error = message.found, message.error
        self.query_one("#result", Static).update(self._view())

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
        return "\n".join(self._lines())
