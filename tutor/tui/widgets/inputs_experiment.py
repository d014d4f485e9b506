"""Pages 3-4's experiment: the validation-loss curves of one model fed the ID as a number,
a one-hot row times W, and a lookup (recorded at build time, tutor/core/experiments.py),
with chance and the token-frequency baseline drawn across, and what each first layer costs.
Enter runs a short version live in a child process (tutor/core/live_inputs.py) and draws
its curves over the recorded ones as each loss arrives; Esc or leaving the page ends it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.experiment_file import RecordedExperiment
from tutor.tui.widgets.plot import Plot
from tutor.words.refusals import say

if TYPE_CHECKING:
    from tutor.content.widgets import InputsWidget
    from tutor.core.experiment_record import Experiments
    from tutor.core.live_inputs import LiveInputs

MARKERS = {"id-number": "x", "onehot": "o", "table": "+"}  # ASCII: plotext counts columns
LIVE_MARKERS = {"id-number": "X", "onehot": "O", "table": "*"}


class LossCurves(Plot):
    """The chosen runs' validation loss against the step; chance and the baseline across."""

    DEFAULT_CSS = """
    LossCurves { height: 12; width: 1fr; }
    """

    def __init__(self, record: Experiments, schemes: list[str]) -> None:
        super().__init__()
        self.record, self.schemes = record, schemes
        self.live: dict[str, tuple[list[int], list[float]]] = {}  # scheme: steps, losses

    def render(self) -> RenderResult:
        plt = self.plt
        plt.clear_figure()
        record = self.record
        for scheme in self.schemes:
            run = record.inputs.run(scheme)
            plt.plot(run.steps, run.val_loss, marker=MARKERS[scheme])
        for scheme, (steps, losses) in self.live.items():
            plt.plot(steps, losses, marker=LIVE_MARKERS[scheme])
        plt.hline(record.chance)
        plt.hline(record.unigram)
        ends = [record.inputs.run(s).val_loss[-1] for s in self.schemes]
        ticks = sorted({round(v, 2) for v in (record.chance, record.unigram, *ends)})
        plt.yticks(ticks, [f"{tick:.2f}" for tick in ticks])
        steps = record.inputs.runs[0].steps
        plt.xticks(sorted({*steps[::2], steps[-1]}))
        return super().render()


class InputsExperiment(RecordedExperiment, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "live", "key.live_inputs", key_display="Enter"),
        Binding("escape", "cancel", "key.cancel", show=False),
    ]

    DEFAULT_CSS = """
    InputsExperiment { height: auto; }
    InputsExperiment Static { height: auto; margin: 0 0 0 1; }
    """

    config: InputsWidget
    live: LiveInputs | None = None

    class LiveEvent(Message):
        """A line from the live run, read on the run's thread."""

        def __init__(self, run: LiveInputs, event: object) -> None:
            super().__init__()
            self.run = run
            self.event = event

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc cancels a run going; otherwise it is the page's (back to the lesson)."""
        return self.live is not None if action == "cancel" else True

    def action_live(self) -> None:
        """Start the live run (from this, the UI thread: see tutor.core.live.ChildRun)."""
        from tutor.core.live import SlotBusy, why_not
        from tutor.core.live_inputs import STEPS, LiveInputs

        ctx = tutor_context(self)
        if self.live is not None or not self.query(LossCurves):
            return
        reason = why_not()
        if reason is not None:
            self._note(ctx.t("train.live.unavailable", reason=say(ctx, reason, "train.why")))
            return
        try:
            self.live = LiveInputs(self._relay)
        except (SlotBusy, OSError) as exc:
            self._note(ctx.t("train.live.unavailable", reason=say(ctx, exc, "train.why")))
            return
        self.query_one(LossCurves).live = {}
        self._note(ctx.t("exp.inputs.live.starting", steps=STEPS))

    def _relay(self, event: object) -> None:
        """Called on the run's reader thread: hand the line to the UI thread."""
        run = self.live
        if run is not None:
            self.post_message(self.LiveEvent(run, event))

    def on_inputs_experiment_live_event(self, message: LiveEvent) -> None:
        from tutor.core.live import Failed
        from tutor.core.live_inputs import Point
        from tutor.tui.widgets.training import why_failed

        message.stop()
        if message.run is not self.live:
            return  # a line from a run already cancelled
        ctx, event = tutor_context(self), message.event
        curves = self.query_one(LossCurves)
        if isinstance(event, Point):
            steps, losses = curves.live.setdefault(event.scheme, ([], []))
            steps.append(event.step)
            losses.append(event.val_loss)
            curves.refresh()
            self._note(ctx.t("exp.inputs.live.running"))
        elif isinstance(event, Failed):
            self.live = None
            self._note(ctx.t("train.live.failed", error=why_failed(ctx, event)))
        else:
            self.live = None
            self._note(ctx.t("exp.inputs.live.done"))

    def action_cancel(self) -> None:
        if self.live is not None:
            run, self.live = self.live, None
            run.cancel()
            self._note(tutor_context(self).t("exp.inputs.live.cancelled"))

    def on_unmount(self) -> None:
        """Leaving the page ends a run still going: no training outlives its screen."""
        if self.live is not None:
            self.live.cancel()
            self.live = None

    def _note(self, text: str) -> None:
        """The live line: what the run is doing, then each scheme's newest loss."""
        ctx = tutor_context(self)
        lines = [text] + [
            ctx.t(
                "exp.inputs.live.run",
                marker=LIVE_MARKERS[scheme],
                scheme=ctx.t(f"experiment.scheme.{scheme}"),
                step=steps[-1],
                loss=f"{losses[-1]:.2f}",
            )
            for scheme, (steps, losses) in self.query_one(LossCurves).live.items()
        ]
        self.query_one("#live", Static).update(Text("\n".join(lines)))

    def parts(self, record: Experiments) -> ComposeResult:
        from tutor.core.live_inputs import STEPS

        ctx = tutor_context(self)
        yield Static(ctx.t("exp.inputs.title", steps=record.steps, d=record.d), id="title")
        yield LossCurves(record, list(self.config.schemes))
        yield Static(Text("\n".join(self.caption(record))), id="caption")
        yield Static(Text(ctx.t("exp.inputs.live.keys", steps=STEPS)), id="live")

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
