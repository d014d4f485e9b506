"""Pages 3-4's experiment: the validation-loss curves of one model fed the ID as a number,
a one-hot row times W, and a lookup (recorded at build time, tutor/core/experiments.py),
with chance and the token-frequency baseline drawn across, and what each first layer costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.widgets import Static
from textual_plotext import PlotextPlot

from tutor.tui.context import tutor_context
from tutor.tui.widgets.experiment_file import RecordedExperiment

if TYPE_CHECKING:
    from tutor.content.widgets import InputsWidget
    from tutor.core.experiment_record import Experiments

MARKERS = {"id-number": "x", "onehot": "o", "table": "+"}  # ASCII: plotext counts columns


class LossCurves(PlotextPlot):
    """The chosen runs' validation loss against the step; chance and the baseline across."""

    DEFAULT_CSS = """
    LossCurves { height: 12; width: 1fr; }
    """

    def __init__(self, record: Experiments, schemes: list[str]) -> None:
        super().__init__()
        self.record, self.schemes = record, schemes

    def render(self) -> RenderResult:
        plt = self.plt
        plt.clear_figure()
        record = self.record
        for scheme in self.schemes:
            run = record.inputs.run(scheme)
            plt.plot(run.steps, run.val_loss, marker=MARKERS[scheme])
        plt.hline(record.chance)
        plt.hline(record.unigram)
        ends = [record.inputs.run(s).val_loss[-1] for s in self.schemes]
        ticks = sorted({round(v, 2) for v in (record.chance, record.unigram, *ends)})
        plt.yticks(ticks, [f"{tick:.2f}" for tick in ticks])
        steps = record.inputs.runs[0].steps
        plt.xticks(sorted({*steps[::2], steps[-1]}))
        return super().render()


class InputsExperiment(RecordedExperiment):
    DEFAULT_CSS = """
    InputsExperiment { height: auto; }
    InputsExperiment Static { height: auto; margin: 0 0 0 1; }
    """

    config: InputsWidget

    def parts(self, record: Experiments) -> ComposeResult:
        ctx = tutor_context(self)
        yield Static(ctx.t("exp.inputs.title", steps=record.steps, d=record.d), id="title")
        yield LossCurves(record, list(self.config.schemes))
        yield Static(Text("\n".join(self.caption(record))), id="caption")

    def caption(self, record: Experiments) -> list[str]:
        """The legend and every figure the plot shows, in words (also the plain reading)."""
        ctx = tutor_context(self)
        lines = [
            ctx.t(
                "exp.inputs.run",
                marker=MARKERS[scheme],
                scheme=ctx.t(f"experiment.scheme.{scheme}"),
                start=f"{record.inputs.run(scheme).val_loss[0]:.2f}",
                end=f"{record.inputs.run(scheme).val_loss[-1]:.2f}",
            )
            for scheme in self.config.schemes
        ]
        lines.append(
            ctx.t(
                "exp.inputs.lines", chance=f"{record.chance:.2f}", unigram=f"{record.unigram:.2f}"
            )
        )
        onehot, table = record.inputs.run("onehot"), record.inputs.run("table")
        lines.append(
            ctx.t(
                "exp.inputs.same",
                diff=f"{record.inputs.max_abs_diff_onehot_table:.4f}",
                evals=len(table.steps),
            )
        )
        lines.append(
            ctx.t(
                "exp.inputs.cost",
                onehot=f"{onehot.bytes_per_step / 2**20:.1f}",
                table=f"{table.bytes_per_step / 2**10:.0f}",
                ratio=f"{record.inputs.bytes_ratio:.0f}",
                madds=f"{onehot.multiply_adds_per_step:,}",
            )
        )
        return lines

    def reading(self, record: Experiments) -> str:
        ctx = tutor_context(self)
        curves = [
            f"{ctx.t(f'experiment.scheme.{s}')}: "
            + ", ".join(
                f"{step} {loss:.2f}" for step, loss in zip(run.steps, run.val_loss, strict=True)
            )
            for s in self.config.schemes
            for run in [record.inputs.run(s)]
        ]
        title = ctx.t("exp.inputs.title", steps=record.steps, d=record.d)
        return "\n".join([title, *curves, *self.caption(record)])
