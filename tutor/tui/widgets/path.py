"""The path of representations: each step, what it solved, and where it got stuck.

One step at a time (left/right walks the chain): nine steps of prose at once would bury
the pattern "each fix creates the next problem". Figures in the prose are facts, and the
strip under the step shows their evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from tutor.content.prose import fact_keys
from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import still_shown
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.facts import FactStrip
from tutor.tui.widgets.field import started_choice

if TYPE_CHECKING:
    from tutor.content.widgets import PathStage, PathWidget


class RepresentationPath(Vertical):
    DEFAULT_CSS = """
    RepresentationPath { height: auto; }
    RepresentationPath #detail { height: auto; margin: 0 0 0 2; }
    """

    def __init__(self, config: PathWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.position = 0

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        names = [stage.name for stage in self.config.stages]
        labels = [f"{n}.{name}" for n, name in enumerate(names, 1)]
        self.position = started_choice(self, "stages", names)
        caption = ctx.t("path.title")
        yield ChoiceBar(names, labels, caption=caption, index=self.position, id="stages")
        yield Static(id="detail")

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        self._show()

    @property
    def stage(self) -> PathStage:
        return self.config.stages[self.position]

    @on(ChoiceBar.Changed, "#stages")
    def _moved(self, event: ChoiceBar.Changed) -> None:
        self.position = event.index
        self._show()

    def _detail(self, stage: PathStage) -> tuple[str, str]:
        ctx = tutor_context(self)
        return ctx.fill_facts(stage.solved), ctx.fill_facts(stage.stuck)

    def _show(self) -> None:
        ctx = tutor_context(self)
        solved, stuck = self._detail(self.stage)
        self.query_one("#detail", Static).update(
            Content.assemble(
                (f"{self.position + 1}. {self.stage.name}\n", "bold"),
                (f"✓ {ctx.t('path.solved')}: ", "bold $text-success"),
                f"{solved}\n",
                (f"✗ {ctx.t('path.stuck')}: ", "bold $text-error"),
                stuck,
            )
        )
        for strip in self.query(FactStrip):
            strip.remove()
        keys = fact_keys(self.stage.solved + self.stage.stuck)
        if keys:
            self.mount(FactStrip(keys))

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        lines = [ctx.t("path.title")]
        for number, stage in enumerate(self.config.stages, 1):
            solved, stuck = self._detail(stage)
            lines.append(
                f"{number}. {stage.name} — {ctx.t('path.solved')}: {solved} "
                f"{ctx.t('path.stuck')}: {stuck}"
            )
        return "\n".join(lines)
