"""Page 4's experiment, live: the three input schemes trained for a few steps in a child
process (tutor/commands/inputs_live.py), each curve streamed back as it is measured.

The same runs as the recorded experiment (tutor/core/experiments.py: same model, seed,
batches and optimizer, only the first layer differs), shorter, so the learner sees them
happen; the recorded curves stay on the plot beside them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tutor.core.live import ChildRun, Failed

STEPS = 60
EVAL_EVERY = 10


class Point(BaseModel):
    """One scheme's validation loss at one step."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["point"] = "point"
    scheme: str
    step: int
    val_loss: float


class Done(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["finished"] = "finished"


InputsMessage = Annotated[Point | Done | Failed, Field(discriminator="kind")]


class LiveInputs(ChildRun):
    """The app's side of the live run: `on_message` gets each Point, then Done or Failed."""

    messages = TypeAdapter(InputsMessage)

    def __init__(self, on_message: Callable[..., None], steps: int = STEPS) -> None:
        self.steps = steps
        self._start("tutor.commands.inputs_live", ["--steps", str(steps)], on_message)
