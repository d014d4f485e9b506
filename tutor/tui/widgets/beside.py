"""A real model's answer beside the lesson's: the designed world's pattern, asked of a model
trained on real text (`tutor --model DIR`, or TUTOR_COMPARE_MODEL), with its shape.

Widgets whose content block says `beside: true` ask both models in one worker; without a
real model they say how to open one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content

from tutor.tui.context import TutorContext
from tutor.words.refusals import say_or_model_error

if TYPE_CHECKING:
    from tutor.core.model import ProjectModel
    from tutor.core.similarity import Neighbour


@dataclass(frozen=True, slots=True)
class BesideAnswer:
    """The real model's nearest tokens (its trained table), or why there are none."""

    name: str
    shape: tuple[int, int] | None
    found: list[Neighbour]
    error: str = ""


def ask_beside(
    ctx: TutorContext, question: Callable[[ProjectModel], list[Neighbour]]
) -> BesideAnswer | None:
    """The real model's answer to `question` (in a worker); None when there is no real model."""
    if ctx.beside_models is None:
        return None
    try:
        model = ctx.beside_models.get()
    except (ValueError, OSError) as exc:
        folder = str(ctx.beside_models.model_dir)
        return BesideAnswer(folder, None, [], say_or_model_error(ctx, exc))
    try:
        return BesideAnswer(model.name, model.table_shape, question(model))
    except (ValueError, OSError) as exc:  # a word it cannot read: its shape still shows
        return BesideAnswer(model.name, model.table_shape, [], say_or_model_error(ctx, exc))


def beside_lines(ctx: TutorContext, answer: BesideAnswer | None) -> list[str]:
    """The heading and the answer, or how to get a real model."""
    if answer is None:
        return [ctx.t("beside.hint")]
    shape = answer.shape
    heading = ctx.t(
        "beside.heading",
        name=answer.name,
        v=f"{shape[0]:,}" if shape else "?",
        d=f"{shape[1]:,}" if shape else "?",
    )
    if answer.error:
        return [heading, answer.error]
    return [heading, "  ".join(f"{n.rank}. {n.piece} {n.score:.3f}" for n in answer.found)]


def beside_view(ctx: TutorContext, answer: BesideAnswer | None) -> Content:
    lines = beside_lines(ctx, answer)
    if answer is None:
        return Content.styled(lines[0], "dim italic")
    style = "bold $text-error" if answer.error else ""
    return Content.assemble((lines[0] + "\n", "bold"), (lines[1], style))
