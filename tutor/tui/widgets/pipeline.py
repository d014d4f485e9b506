"""Where this lesson sits in the model: text -> tokens -> IDs -> embedding -> ... -> output.

The current step is reversed and framed by arrows, so it stands out without colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widget import Widget

from tutor.tui.context import tutor_context
from tutor.tui.widgets.flow import Flow

if TYPE_CHECKING:
    from tutor.content.widgets import PipelineWidget

STEPS = ("text", "tokens", "ids", "embedding", "attention", "ffn", "output")


class PipelineStrip(Widget):
    """One row of steps, wrapped between steps when narrow.

    A picture with nothing to do: not a focus stop, so Tab goes first to what a learner
    uses (its words are in the plain-text view, r, for screen readers).
    """

    DEFAULT_CSS = """
    PipelineStrip { height: auto; margin: 1 0; }
    """

    def __init__(self, config: PipelineWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config

    def render(self) -> Flow:
        ctx = tutor_context(self)
        items: list[Content] = []
        for number, step in enumerate(STEPS):
            label = ctx.t(f"pipe.{step}")
            if step == self.config.current:
                shown = Content.styled(f"▶ {label} ◀", "reverse bold")
            else:
                shown = Content.styled(
                    label, "dim" if number > STEPS.index(self.config.current) else ""
                )
            items.append(Content.assemble("→ ", shown) if number else shown)
        return Flow(items, gap=1)

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        steps = " → ".join(ctx.t(f"pipe.{step}") for step in STEPS)
        here = ctx.t("pipe.here", stage=ctx.t(f"pipe.{self.config.current}"))
        return f"{here} ({steps})"
