"""The "why a vector" experiment: the lesson's 20 category words when each token gets one
learned number (d = 1, a line) and two (d = 2, a plane), and the validation loss and the
category contrast at every recorded width (tutor/core/experiments.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.widgets import Static

from tutor.cjk import table
from tutor.tui.context import tutor_context
from tutor.tui.widgets.experiment_file import RecordedExperiment
from tutor.tui.widgets.plot import Plot

if TYPE_CHECKING:
    from tutor.content.widgets import WidthWidget
    from tutor.core.experiment_record import Experiments

MARKERS = {"people": "P", "animals": "A", "fruits": "F", "vehicles": "V"}  # ASCII for plotext


class Plane(Plot):
    """The 20 words' rows at d = 2, one marker per kind."""

    DEFAULT_CSS = """
    Plane { height: 14; width: 1fr; }
    """

    def __init__(self, record: Experiments) -> None:
        super().__init__()
        self.record = record

    def render(self) -> RenderResult:
        plt = self.plt
        plt.clear_figure()
        points = self.record.width.coords["d2"]
        for kind, marker in MARKERS.items():
            mine = [p for p, k in zip(points, self.record.kinds, strict=True) if k == kind]
            plt.scatter([p[0] for p in mine], [p[1] for p in mine], marker=marker)
        return super().render()


class WidthExperiment(RecordedExperiment):
    DEFAULT_CSS = """
    WidthExperiment { height: auto; }
    WidthExperiment Static { height: auto; margin: 0 0 0 1; }
    """

    config: WidthWidget

    def parts(self, record: Experiments) -> ComposeResult:
        ctx = tutor_context(self)
        yield Static(Text(self.line(record)), id="line")
        if self.config.plane:
            yield Static(ctx.t("exp.width.plane"), id="plane-title")
            yield Plane(record)
            yield Static(Text(self.legend()), id="legend")
        yield Static(Text(self.table(record)), id="table")

    def _kind(self, kind: str) -> str:
        return tutor_context(self).t(f"exp.kind.{kind}")

    def legend(self) -> str:
        return "  ".join(f"{marker} {self._kind(kind)}" for kind, marker in MARKERS.items())

    def line(self, record: Experiments) -> str:
        """The words in the order of their one number, each with its kind's marker."""
        values = [row[0] for row in record.width.coords["d1"]]
        order = sorted(range(len(values)), key=values.__getitem__)
        words = " ".join(f"{record.words[i]}({MARKERS[record.kinds[i]]})" for i in order)
        return tutor_context(self).t("exp.width.line", words=words, legend=self.legend())

    def table(self, record: Experiments) -> str:
        ctx = tutor_context(self)
        rows = [
            [str(r.d), f"{r.val_loss:.2f}", f"{r.contrast:+.2f}", f"{r.contrast_before:+.2f}"]
            for r in record.width.runs
        ]
        names = ("d", "end", "contrast", "before")
        header = [ctx.t(f"experiment.col.{name}") for name in names]
        title = ctx.t("exp.width.title", steps=record.width_steps, chance=f"{record.chance:.2f}")
        return f"{title}\n{table(header, rows)}"

    def reading(self, record: Experiments) -> str:
        ctx = tutor_context(self)
        parts = [self.line(record)]
        if self.config.plane:
            points = ", ".join(
                f"{w} ({x:.2f}, {y:.2f})"
                for w, (x, y) in zip(record.words, record.width.coords["d2"], strict=True)
            )
            parts.append(f"{ctx.t('exp.width.plane')} {points}")
        return "\n".join([*parts, self.table(record)])
