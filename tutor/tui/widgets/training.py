"""The training run, step by step: scrub through the checkpoints recorded while the
shipped model trained, and watch the heatmap's blocks form and the neighbours change.

Every step's picture is computed once, in a worker, when the run loads (30 checkpoints of
20 tokens are a few hundred small cosines); a scrub key then only swaps prepared text,
and the plot keeps each step's rendering, so scrubbing answers within a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.visual import Visual, VisualType, visualize
from textual.widget import Widget
from textual.widgets import Static

from tutor.core.figures import axis_ticks, significant, tick_labels
from tutor.core.refusal import Coded, Name
from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking, still_shown
from tutor.tui.widgets.heatmap import band, legend_ranges, pad_cells
from tutor.tui.widgets.plot import Plot
from tutor.tui.widgets.run_map import HE, KIND_MARKS, OTHER_MARK, SHE, Arrow, Mark, draw
from tutor.tui.widgets.update import update_in_place
from tutor.words.refusals import Says, say, say_or_model_error, sentence_key

if TYPE_CHECKING:
    import numpy as np

    from tutor.content.widgets import TrainingWidget
    from tutor.core.live import Failed, LiveRun, Reached
    from tutor.core.projection import Agreement, RunMap
    from tutor.core.similarity import Neighbour
    from tutor.core.trajectory import Trajectory, TrajectoryRecording


PLOT_FRAME_ROWS = 3  # the plot's top and bottom borders and the x axis's labels
MAP_MIN_WIDTH = 40  # narrower than this beside the heatmap, the map goes below it


@dataclass(frozen=True, slots=True)
class StepView:
    """What the widget shows at one checkpoint, prepared off the UI thread."""

    step: int
    train_loss: float
    val_loss: float
    contrast: float
    matrix: np.ndarray
    neighbours: dict[str, list[Neighbour]]
    agreement: Agreement | None = None  # the names' 他→她 against the pairs' 男→女


@dataclass(frozen=True, slots=True)
class RunView:
    """A whole run, prepared: its steps' views, the curves, what the tokens are, and the
    map of every step on the run's one plane (with the kinds and pairs it draws)."""

    views: list[StepView]
    total_steps: int
    uniform_loss: float
    recorded_tokens: int
    errors: list[str]
    map: RunMap | None = None
    kinds: dict[str, str] = field(default_factory=dict)
    pairs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def steps(self) -> list[int]:
        return [v.step for v in self.views]


def prepare(
    run: Trajectory, config: TrainingWidget, vocab_size: int, *, last_only: bool = False
) -> RunView:
    """Every checkpoint's matrix, neighbours and contrast (or the last one's, for a live
    run's newest checkpoint), and the map of all of them on one plane; tokens not
    recorded are named."""
    from tutor.core.projection import direction_agreement, gender_of_names, run_map

    paired = [token for pair in config.pairs for token in pair]
    errors = [
        token
        for token in dict.fromkeys([*config.tokens, *config.neighbours, *paired])
        if token not in run.tokens
    ]
    shown = [t for t in config.tokens if t in run.tokens]
    asked = [t for t in config.neighbours if t in run.tokens]
    pairs = [(a, b) for a, b in config.pairs if a in run.tokens and b in run.tokens]
    mapped = list(dict.fromkeys([*shown, *(t for pair in pairs for t in pair)]))
    male, female = gender_of_names(mapped)
    views = []
    first = len(run.steps) - 1 if last_only else 0
    for index, step in enumerate(run.steps[first:], start=first):
        _, matrix = run.similarity(shown, index)
        views.append(
            StepView(
                step=step,
                train_loss=run.meta.train_loss[index],
                val_loss=run.meta.val_loss[index],
                contrast=float(run.contrast[index]),
                matrix=matrix,
                neighbours={t: run.nearest(t, index, config.k) for t in asked},
                agreement=(
                    direction_agreement(run, pairs, index, mapped)
                    if pairs and male and female
                    else None
                ),
            )
        )
    kinds = {t: kind for kind, members in run.meta.categories.items() for t in members}
    return RunView(
        views,
        run.steps[-1],
        math.log(vocab_size),
        len(run.tokens),
        errors,
        run_map(run, mapped, pairs) if len(mapped) > 2 else None,
        kinds,
        pairs,
    )


Prepared = tuple[RunView | None, str, Path | None]  # the run, why not, the model's folder


def load_run(ctx: TutorContext, config: TrainingWidget) -> Prepared:
    """In a worker: open the model and its recorded run, and prepare every checkpoint."""
    from tutor.core.recorded import recorded_run
    from tutor.core.trajectory import TrajectoryError

    try:
        model = ctx.models.get()
    except (ValueError, OSError) as exc:
        return None, say_or_model_error(ctx, exc), None
    try:
        return prepare(recorded_run(model.path), config, model.scheme.vocab_size), "", model.path
    except (TrajectoryError, ValueError, OSError) as exc:
        return None, say(ctx, exc), model.path


def why_failed(ctx: Says, event: Failed) -> str:
    """Why a live run stopped: in the learner's language where the reason has a code (a
    run that died without a word, a model that cannot be opened), else the run's own words."""
    if sentence_key(Coded("", event.code), "train.why") is not None:
        return say(ctx, Coded(event.message, event.code, **event.values), "train.why")
    if not event.code or sentence_key(Coded("", event.code)) is None:
        return event.message
    values = {k: Name(v) if isinstance(v, str) else v for k, v in event.values.items()}
    return say_or_model_error(ctx, Coded(event.message, event.code, **values))


class KeptLines(Widget):
    """A picture per checkpoint, turned into screen lines once per (checkpoint, size,
    theme) and kept: scrubbing back and forth then costs a lookup, not a re-render of a
    few hundred styled cells (or a plotext drawing, ~15 ms) on every key."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.run: RunView | None = None
        self.index = 0
        self._kept: dict[tuple[object, ...], list[Strip]] = {}

    def show(self, run: RunView, index: int) -> None:
        """Show checkpoint `index`; only a new run can change the height (a layout pass)."""
        new_run = run is not self.run
        if new_run:
            self._kept.clear()  # a live run's newest checkpoint redraws its curves
        self.run, self.index = run, index
        self.refresh(layout=new_run)

    def picture(self, run: RunView, index: int, width: int, height: int) -> VisualType:
        raise NotImplementedError

    def lines(self, width: int, height: int | None = None) -> list[Strip]:
        if self.run is None or width <= 0:
            return []
        key = (self.index, width, height, self.app.theme)
        if key not in self._kept:
            visual = visualize(self, self.picture(self.run, self.index, width, height or 0))
            self._kept[key] = Visual.to_strips(self, visual, width, height, self.visual_style)
        return self._kept[key]

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        lines = self.lines(width, self._fixed_height(height))
        return lines[y] if y < len(lines) else Strip.blank(width, self.visual_style.rich_style)

    def _fixed_height(self, height: int) -> int | None:
        return None if self.styles.height is None or self.styles.height.is_auto else height

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))


class StepPlot(KeptLines, Plot):
    """Loss and category contrast against the step (log scale), the current step marked."""

    DEFAULT_CSS = """
    StepPlot { height: 9; width: 1fr; }
    """

    def picture(self, run: RunView, index: int, width: int, height: int) -> Text:
        """Validation loss (•, left axis) and contrast (+, right axis); the caption below
        the plot names them, since plotext counts a CJK character as one column. Both axes
        tick at evenly spaced round values, one per text row they sit on (plotext's own
        ticks fall between rows and skip), and the x axis runs to the run's last step."""
        plt = self.plt
        plt.clear_figure()
        plt.plotsize(width, height)
        plt.theme(self._get_plotext_theme_name(self.app.theme))
        plt.xscale("log")  # at step + 1, so that step 0 has a place on the axis
        xs = [step + 1 for step in run.steps]
        ticks = [0, *(10**n for n in range(1, int(math.log10(run.total_steps)) + 1))]
        ticks = sorted({*ticks, run.total_steps})
        plt.xticks([tick + 1 for tick in ticks], [f"{tick:,}" for tick in ticks])
        plt.xlim(0, math.log10(run.total_steps + 1))  # plotext takes a log axis's limits in log10
        rows = height - PLOT_FRAME_ROWS
        for values, marker, side in (
            ([v.val_loss for v in run.views], "•", "left"),
            ([v.contrast for v in run.views], "+", "right"),
        ):
            plt.plot(xs, values, marker=marker, yside=side)
            ticks = axis_ticks(min(values), max(values), rows)
            plt.ylim(ticks[0], ticks[-1], yside=side)
            plt.yticks(ticks, tick_labels(ticks), yside=side)
        plt.vline(xs[index])
        return Text.from_ansi(plt.build())


class StepGrid(KeptLines):
    """The tokens' cosine heatmap at one checkpoint, in the lesson heatmap's shades."""

    DEFAULT_CSS = """
    StepGrid { height: auto; width: 1fr; }
    """

    def __init__(self, tokens: list[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tokens = tokens

    def needed_width(self) -> int:
        """Columns for the labels and a cell per token (the legend may wrap)."""
        labels = [f"{n + 1:>2} {piece}" for n, piece in enumerate(self.tokens)]
        return max(cell_len(label) for label in labels) + 1 + 3 * len(self.tokens)

    def picture(self, run: RunView, index: int, width: int, height: int) -> Content:
        ctx = tutor_context(self)
        view = run.views[index]
        pieces = [t for t in self.tokens if t not in run.errors]
        labels = [f"{n + 1:>2} {piece}" for n, piece in enumerate(pieces)]
        label_width = max(cell_len(label) for label in labels) + 1
        title = ctx.t("heat.title", count=len(pieces), stage=ctx.t("train.at", step=view.step))
        parts: list[str | tuple[str, str]] = [(title, "bold"), "\n", " " * label_width]
        parts += [f"{n + 1:>2} " for n in range(len(pieces))]
        parts.append("\n")
        for row, label in enumerate(labels):
            parts.append(pad_cells(label, label_width))
            for column in range(len(pieces)):
                glyph, colour = band(float(view.matrix[row, column]))
                parts.append((f"{glyph} ", f"bold {colour}"))
            parts.append("\n")
        used = 0  # the legend breaks between bands where the grid is narrower than it
        for glyph, colour, text in legend_ranges():
            item = cell_len(f"{glyph} {text}  ")
            if used and used + item > width:
                parts.append("\n")
                used = 0
            parts += [(glyph, f"bold {colour}"), f" {text}  "]
            used += item
        return Content.assemble(*parts)


class StepMap(KeptLines):
    """The tokens on the run's one plane at this checkpoint: names by their character
    (colour: followed by 他 or 她), pairs in full with an arrow 男→女, the names' own
    他→她 arrow between their two groups' centres, the other kinds by a glyph."""

    DEFAULT_CSS = """
    StepMap { height: 16; width: 1fr; }
    """

    def picture(self, run: RunView, index: int, width: int, height: int) -> Content:
        from tutor.core.projection import gender_of_names

        ctx = tutor_context(self)
        title = Content.styled(
            ctx.t("train.map.title", stage=ctx.t("train.at", step=run.views[index].step)), "bold"
        )
        mapped = run.map
        if mapped is None or height < 3:
            return title
        points = dict(zip(mapped.tokens, mapped.points[index].tolist(), strict=True))
        male, female = gender_of_names(mapped.tokens)
        he = {*male, *(a for a, _ in run.pairs)}
        marks = []
        for token, (x, y) in points.items():
            if token in male or token in female:
                text, style = token[-1], HE if token in he else SHE
            elif any(token in pair for pair in run.pairs):
                text, style = token, HE if token in he else SHE
            else:
                text, style = KIND_MARKS.get(run.kinds.get(token, ""), OTHER_MARK)
            marks.append(Mark(text, f"bold {style}", x, y))
        arrows = [Arrow(tuple(points[a]), tuple(points[b]), "dim") for a, b in run.pairs]
        if run.pairs and male and female:
            centre = [_centre([points[t] for t in group]) for group in (male, female)]
            arrows.append(Arrow(centre[0], centre[1], "dim"))
        low, high = tuple(mapped.low.tolist()), tuple(mapped.high.tolist())
        canvas = draw(marks, arrows, low, high, width, height - 1)
        return Content("\n").join([title, canvas])


def _centre(points: list[list[float]]) -> tuple[float, float]:
    return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)


class TrainingRun(Asking, Vertical, can_focus=True):
    """←/→ move one checkpoint; home/end jump to the first and the last step; enter trains
    a run of the learner's own (w and s choose its width and steps), x cancels it, b shows
    the recorded run again. (t, r, n, p, h and q keep their app and page meanings.)"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "scrub(-1)", "key.scrub", key_display="←→"),
        Binding("right", "scrub(1)", "key.scrub", show=False),
        Binding("home", "jump(0)", "key.ends", key_display="Home/End"),
        Binding("end", "jump(-1)", "key.ends", show=False),
        Binding("enter", "train", "key.train", key_display="Enter"),
        Binding("w", "choose_width", "key.width", show=False),
        Binding("s", "choose_steps", "key.steps", show=False),
        Binding("x", "cancel", "key.cancel", show=False),
        Binding("b", "recorded", "key.recorded", show=False),
    ]

    DEFAULT_CSS = """
    TrainingRun { height: auto; padding: 0 0 1 0; }
    TrainingRun:focus-within #status { text-style: bold; }
    TrainingRun #grid { text-wrap: nowrap; }
    TrainingRun #pictures { height: auto; }
    TrainingRun #map-side { height: auto; width: 1fr; }
    TrainingRun #pictures.stacked { layout: vertical; }
    TrainingRun #pictures.stacked #grid { width: 1fr; }
    """

    index: reactive[int] = reactive(0, init=False)

    class LiveEvent(Message):
        """A line from the learner's own run, read on the run's thread."""

        def __init__(self, run: LiveRun, event: object) -> None:
            super().__init__()
            self.run = run
            self.event = event

    def __init__(self, config: TrainingWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.run: RunView | None = None
        self.recorded: RunView | None = None  # the shipped run, kept while a live one shows
        self.error = ""
        self.model_dir: Path | None = None
        self.live: LiveRun | None = None
        self.live_recording: TrajectoryRecording | None = None
        self.live_vocab = 0
        self.width_choice, self.steps_choice = 1, 1  # d = 16, 100 steps
        self.live_note = ""

    def compose(self) -> ComposeResult:
        yield Static(tutor_context(self).t("model.loading"), id="status")
        yield Static(id="live")  # near the top: at 80x24 the learner sees a run's progress
        yield StepPlot(id="plot")
        yield Static(tutor_context(self).t("train.plot"), id="caption")
        with Horizontal(id="pictures"):
            yield StepGrid(list(self.config.tokens), id="grid")
            with Vertical(id="map-side"):
                yield StepMap(id="map")
                yield Static(id="map-caption")
        yield Static(id="neighbours")

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        self.query_one(StepPlot).display = False
        self.query_one("#caption").display = False
        self.query_one("#map-side").display = False
        ctx, config = tutor_context(self), self.config
        self.ask(lambda: load_run(ctx, config), self._prepared)

    def _prepared(self, prepared: Prepared) -> None:
        self.run, self.error, self.model_dir = prepared
        self.recorded = self.run
        self._show_live()
        if self.run is None:
            update_in_place(
                self.query_one("#status", Static),
                Content.styled(tutor_context(self).t("train.missing", error=self.error), "bold"),
            )
            return
        self.query_one(StepPlot).display = True
        self.query_one("#caption").display = True
        self.query_one("#map-side").display = True
        self.index = 0
        self._show()

    def action_scrub(self, delta: int) -> None:
        if self.run is not None:
            self.index = max(0, min(len(self.run.views) - 1, self.index + delta))

    def action_jump(self, end: int) -> None:
        if self.run is not None:
            self.index = end % len(self.run.views)

    def on_resize(self) -> None:
        """The map beside the heatmap where both fit (120 columns), else below it."""
        grid = self.query_one(StepGrid)
        stacked = self.size.width < grid.needed_width() + MAP_MIN_WIDTH
        self.query_one("#pictures").set_class(stacked, "stacked")
        grid.styles.width = None if stacked else grid.needed_width()

    def watch_index(self) -> None:
        if self.run is not None:
            self._show()

    @property
    def view(self) -> StepView | None:
        return self.run.views[self.index] if self.run is not None else None

    def _show(self) -> None:
        assert self.run is not None
        update_in_place(self.query_one("#status", Static), self._status())
        self.query_one(StepPlot).show(self.run, self.index)
        self.query_one(StepGrid).show(self.run, self.index)
        self.query_one(StepMap).show(self.run, self.index)
        update_in_place(
            self.query_one("#map-caption", Static), Content("\n".join(self.map_lines()))
        )
        update_in_place(self.query_one("#neighbours", Static), self._neighbours())

    # the learner's own run ---------------------------------------------------

    def action_choose_width(self) -> None:
        from tutor.core.live import WIDTHS

        if self.live is None:
            self.width_choice = (self.width_choice + 1) % len(WIDTHS)
            self._show_live()

    def action_choose_steps(self) -> None:
        from tutor.core.live import STEPS

        if self.live is None:
            self.steps_choice = (self.steps_choice + 1) % len(STEPS)
            self._show_live()

    def action_train(self) -> None:
        """Start a run in a child process (from this, the UI thread: see LiveRun)."""
        from tutor.core.live import STEPS, WIDTHS, LiveRun, SlotBusy, why_not

        ctx = tutor_context(self)
        if self.live is not None or self.model_dir is None:
            return
        reason = why_not()
        if reason is not None:
            self._note(ctx.t("train.live.unavailable", reason=say(ctx, reason, "train.why")))
            return
        d, steps = WIDTHS[self.width_choice], STEPS[self.steps_choice]
        try:
            self.live = LiveRun(d, steps, self._out_dir(d, steps), self.model_dir, self._relay)
        except (SlotBusy, OSError, ValueError) as exc:  # a busy server has a sentence
            self._note(ctx.t("train.live.unavailable", reason=say(ctx, exc, "train.why")))
            return
        self._note(ctx.t("train.live.starting", d=d, steps=steps))

    def _out_dir(self, d: int, steps: int) -> Path:
        """A new run's folder in the learner's runs folder, the oldest runs past the
        number kept removed first."""
        import time

        from tutor.core.live import make_room

        folder = tutor_context(self).runs_dir()
        make_room(folder)
        return folder / f"d{d}-{steps}steps-{time.strftime('%Y%m%d-%H%M%S')}"

    def _relay(self, event: object) -> None:
        """Called on the run's reader thread: hand the line to the UI thread."""
        live = self.live
        if live is not None:
            self.post_message(self.LiveEvent(live, event))

    def on_training_run_live_event(self, message: LiveEvent) -> None:
        from tutor.core.live import Failed, Finished, Reached, Started, recording_of

        message.stop()
        if message.run is not self.live:
            return  # a line from a run already cancelled
        ctx = tutor_context(self)
        event = message.event
        if isinstance(event, Started):
            self.live_recording = recording_of(event)
            self.live_vocab = event.vocab_size
        elif isinstance(event, Reached) and self.live_recording is not None:
            self._add_checkpoint(event)
        elif isinstance(event, Finished):
            self.live = None
            # a served learner cannot open a folder on the server: the run is on screen
            note = (
                ctx.t("train.live.done_remote")
                if ctx.remote
                else ctx.t("train.live.done", path=event.model_dir)
            )
            self._note(note + ("\n" + event.warning if event.warning else ""))
        elif isinstance(event, Failed):
            self.live = None
            self._note(ctx.t("train.live.failed", error=self._why_failed(event)))

    def _why_failed(self, event: Failed) -> str:
        """Why the run stopped; a served learner is told in our own words or not at all,
        since the run's words (an OSError, a model's error) name the server's folders."""
        ctx = tutor_context(self)
        if ctx.remote and sentence_key(Coded("", event.code), "train.why") is None:
            return ctx.t("train.live.failed_remote")
        return why_failed(ctx, event)

    def _add_checkpoint(self, event: Reached) -> None:
        assert self.live_recording is not None and self.live is not None
        self.live_recording.add(event.checkpoint())
        latest = self.live_recording.trajectory()
        view = prepare(latest, self.config, self.live_vocab, last_only=True)
        following = (
            self.run is None or self.run is self.recorded or (self.index == len(self.run.views) - 1)
        )
        views = [] if self.run is self.recorded or self.run is None else self.run.views
        self.run = RunView(
            [*views, *view.views],
            self.live.steps,
            view.uniform_loss,
            view.recorded_tokens,
            view.errors,
            view.map,  # refitted on all of the run's checkpoints so far
            view.kinds,
            view.pairs,
        )
        self._note(
            tutor_context(self).t(
                "train.live.running", step=event.step, steps=self.live.steps, d=self.live.d
            )
        )
        self.query_one(StepPlot).display = True
        self.query_one("#caption").display = True
        self.query_one("#map-side").display = True
        if following and self.index != len(self.run.views) - 1:
            self.index = len(self.run.views) - 1  # the watcher shows it
        else:
            self._show()

    def action_cancel(self) -> None:
        if self.live is not None:
            live, self.live = self.live, None
            live.cancel()
            self._note(tutor_context(self).t("train.live.cancelled"))

    def action_recorded(self) -> None:
        if self.recorded is not None and self.live is None and self.run is not self.recorded:
            self.run = self.recorded
            self.index = 0
            self._show()

    def on_unmount(self) -> None:
        """Leaving the page ends a run still going: no training outlives its screen."""
        if self.live is not None:
            self.live.cancel()
            self.live = None

    def _note(self, text: str) -> None:
        self.live_note = text
        self._show_live()

    def _show_live(self) -> None:
        """The own-run line; shown once the run is prepared (its worker has imported the
        core, so this import costs the UI thread nothing)."""
        from tutor.core.live import STEPS, WIDTHS

        ctx = tutor_context(self)
        choice = ctx.t(
            "train.live.choice", d=WIDTHS[self.width_choice], steps=STEPS[self.steps_choice]
        )
        keys = ctx.t("train.live.cancel_keys" if self.live else "train.live.keys")
        lines = [Content.assemble((choice, "bold"), "  ", (keys, "dim"))]
        if self.live_note:
            lines.append(Content(self.live_note))
        update_in_place(self.query_one("#live", Static), Content("\n").join(lines))

    def status_text(self) -> str:
        """The step, both losses and the contrast beside its chance level, in words."""
        ctx = tutor_context(self)
        run, view = self.run, self.view
        assert run is not None and view is not None
        return "\n".join(
            [
                ctx.t(
                    "train.step",
                    step=f"{view.step:,}",
                    total=f"{run.total_steps:,}",
                    n=self.index + 1,
                    count=len(run.views),
                ),
                ctx.t(
                    "train.loss",
                    train=f"{view.train_loss:.3f}",
                    val=f"{view.val_loss:.3f}",
                    uniform=f"{run.uniform_loss:.3f}",
                ),
                ctx.t(
                    "train.contrast",
                    value=f"{view.contrast:+.3f}",
                    chance=f"{run.views[0].contrast:+.3f}",
                ),
            ]
        )

    def _status(self) -> Content:
        ctx = tutor_context(self)
        lines = self.status_text().split("\n")
        keys = ctx.t("train.keys")
        return Content.assemble(
            (lines[0], "bold"), "  ", (keys, "dim"), "\n", lines[1], "\n", lines[2]
        )

    def neighbour_lines(self) -> list[str]:
        ctx = tutor_context(self)
        run, view = self.run, self.view
        assert run is not None and view is not None
        lines = [
            ctx.t(
                "train.neighbours",
                token=token,
                count=run.recorded_tokens,
                list="  ".join(f"{n.piece} {n.score:.2f}" for n in found),
            )
            for token, found in view.neighbours.items()
        ]
        if run.errors:
            lines.append(ctx.t("train.unrecorded", tokens="、".join(run.errors)))
        return lines

    def map_lines(self) -> list[str]:
        """What the map's axes are, its legend, and the names' direction against the pairs'."""
        from tutor.core.projection import gender_of_names

        ctx = tutor_context(self)
        run, view = self.run, self.view
        assert run is not None and view is not None
        if run.map is None:
            return []
        pairs = "、".join(f"{a}→{b}" for a, b in run.pairs)
        lines = [
            ctx.t("train.map.axes_pairs", pairs=pairs) if pairs else ctx.t("train.map.axes_pca")
        ]
        male, female = gender_of_names(run.map.tokens)
        lines.append(
            ctx.t(
                "train.map.legend",
                he=" ".join(t[-1] for t in male) or "-",
                she=" ".join(t[-1] for t in female) or "-",
            )
        )
        if view.agreement is not None:
            lines.append(
                ctx.t(
                    "train.map.agreement",
                    pairs=pairs,
                    cos=significant(view.agreement.cosine, 2),
                    chance=significant(view.agreement.chance_sd, 2),
                )
            )
        return lines

    def _neighbours(self) -> Content:
        return Content("\n".join(self.neighbour_lines()))

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        if self.run is None:
            return ctx.t("train.missing", error=self.error) if self.error else ""
        view = self.view
        assert view is not None
        pieces = [t for t in self.config.tokens if t not in self.run.errors]
        rows = [
            f"{piece}: "
            + ", ".join(
                f"{other} {view.matrix[r, c]:.2f}" for c, other in enumerate(pieces) if c != r
            )
            for r, piece in enumerate(pieces)
        ]
        return "\n".join([self.status_text(), *rows, *self.map_lines(), *self.neighbour_lines()])
