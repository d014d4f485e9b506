"""The recorded experiments as a widget reads them: once per app, or why not in words."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from tutor.core.experiment_record import ExperimentError, Experiments, load_experiments
from tutor.core.paths import assets_dir
from tutor.words.refusals import say

if TYPE_CHECKING:
    from tutor.tui.context import TutorContext


@cache
def _load() -> Experiments:
    return load_experiments(assets_dir() / "models")


def load_recorded(ctx: TutorContext) -> tuple[Experiments | None, str]:
    """The shipped experiments, or None and the reason in the learner's language."""
    try:
        return _load(), ""
    except ExperimentError as exc:
        return None, say(ctx, exc)
