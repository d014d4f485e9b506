"""The recorded experiments as a widget reads them: once per app, or why not in words."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from textual.containers import Vertical
from textual.widgets import Static

from tutor.core.experiment_record import ExperimentError, Experiments, load_experiments
from tutor.core.paths import assets_dir
from tutor.tui.context import tutor_context
from tutor.words.refusals import say

if TYPE_CHECKING:
    from textual.app import ComposeResult

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


class RecordedExperiment(Vertical):
    """A widget that draws one recorded experiment, or says why it cannot."""

    def __init__(self, config: Any, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config

    def compose(self) -> ComposeResult:
        record, problem = load_recorded(tutor_context(self))
        if record is None:
            yield Static(problem)
            return
        yield from self.parts(record)

    def parts(self, record: Experiments) -> ComposeResult:
        raise NotImplementedError

    def reading(self, record: Experiments) -> str:
        """Every figure the parts show, as text (the page's plain reading)."""
        raise NotImplementedError

    def plain_text(self) -> str:
        record, problem = load_recorded(tutor_context(self))
        return problem if record is None else self.reading(record)
