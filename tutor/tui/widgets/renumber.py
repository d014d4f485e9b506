"""Renumbering the trained model's IDs, run by the learner (page 10).

One random permutation, drawn from the press's seed (1 on arrival, then 2, 3 … each time
Enter is pressed; never chosen for its result), is applied two ways: consistently (the
tokenizer's ID map, the input table and the output layer) and to the tokenizer alone. The
sentence's top-5 next tokens are shown side by side, then the validation loss with the
tokenizer alone renumbered, which takes about a second of numpy (tutor/core/renumber.py) and
so shows its progress. Each figure is computed in a child process (`renumber.ask`): the
forward pass's weights and renumbered copies never stay in the learner's process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import Asking
from tutor.tui.widgets.field import started_text
from tutor.tui.widgets.heatmap import pad_cells

if TYPE_CHECKING:
    from tutor.content.widgets import RenumberWidget
    from tutor.core.renumber import Prediction, SentenceShown


@dataclass(frozen=True, slots=True)
class Baseline:
    top: list[Prediction]
    val_loss: float
    chance: float
    positions: int


def baseline(sentence: str) -> Baseline:
    from tutor.core.renumber import SAMPLE_POSITIONS, Prediction, ask

    base = ask("base", 0, sentence)
    top = [Prediction(**p) for p in base["top"]]
    return Baseline(top, base["val_loss"], base["chance"], SAMPLE_POSITIONS)


def sentence_shown(seed: int, sentence: str) -> SentenceShown:
    from tutor.core.renumber import ask, shown_from

    return shown_from(ask("sentence", seed, sentence))


@dataclass(frozen=True, slots=True)
class Loss:
    seed: int
    value: float


COLUMN = 22  # a top-5 column: a piece, its ID and its probability
PIECE = 10  # columns of a piece before it is cut with "…"


def piece_cell(prediction: Prediction) -> str:
    piece = prediction.piece
    if piece.startswith(" "):  # a word's leading space, seen (not a byte piece's "<E6 94>")
        piece = "␣" + piece[1:]
    if cell_len(piece) > PIECE:
        while cell_len(piece) > PIECE - 1:
            piece = piece[:-1]
        piece += "…"
    return pad_cells(piece, PIECE) + f"{'#' + str(prediction.id):>6} {prediction.probability:.3f}"


class RenumberDemo(Asking, can_focus=True):
    """Enter draws a new permutation; the experiment is recomputed for it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "draw", "key.renumber", key_display="Enter"),
    ]

    DEFAULT_CSS = """
    RenumberDemo { height: auto; width: 100%; }
    """

    class Progressed(Message, bubble=False):
        """A worker's progress through the validation sample for one seed."""

        def __init__(self, seed: int, done: int, total: int) -> None:
            super().__init__()
            self.seed, self.done, self.total = seed, done, total

    def __init__(self, config: RenumberWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.seed = 1
        self.base: Baseline | None = None
        self.shown: SentenceShown | None = None
        self.loss: Loss | None = None
        self.progress: tuple[int, int] = (0, 0)

    def on_mount(self) -> None:
        kept = started_text(self, "seed", "1", read=lambda: str(self.seed))
        self.seed = int(kept) if kept.isdigit() and int(kept) > 0 else 1
        sentence = self.config.sentence
        self.ask(lambda: baseline(sentence), self._based, topic="base")
        self._ask_seed()

    def _ask_seed(self) -> None:
        seed, sentence = self.seed, self.config.sentence
        self.progress = (0, 0)
        self.ask(lambda: sentence_shown(seed, sentence), self._sentenced, topic="sentence")

    def _ask_loss(self, seed: int) -> None:
        """After the sentence's answer, so that the two never share the CPU."""
        from tutor.core.renumber import ask

        def tick(done: int, total: int) -> None:  # in the worker: a message, not a widget
            self.post_message(self.Progressed(seed, done, total))

        self.ask(
            lambda: Loss(seed, ask("loss", seed, self.config.sentence, tick)),
            self._lost,
            topic="loss",
        )

    def action_draw(self) -> None:
        self.seed += 1
        self.shown, self.loss = None, None
        self._ask_seed()
        self.refresh(layout=True)

    def _based(self, base: Baseline) -> None:
        self.base = base
        self.refresh(layout=True)

    def _sentenced(self, shown: SentenceShown) -> None:
        self.shown = shown
        self._ask_loss(shown.seed)
        self.refresh(layout=True)

    def _lost(self, loss: Loss) -> None:
        self.loss = loss
        self.refresh(layout=True)

    def on_renumber_demo_progressed(self, message: Progressed) -> None:
        message.stop()
        if message.seed == self.seed:
            self.progress = (message.done, message.total)
            self.refresh(layout=True)  # a longer count may wrap the line

    def least_lines(self, width: int) -> int:
        return sum(line.plain.count("\n") + 1 for line in self._lines())

    def _lines(self) -> list[Content]:
        ctx = tutor_context(self)
        t = ctx.t
        lines = [
            Content.styled(t("renumber.title", seed=self.seed), "bold"),
            Content(t("renumber.top", sentence=self.config.sentence)),
        ]
        heads = [t("renumber.col.before"), t("renumber.col.consistent"), t("renumber.col.only")]
        lines.append(Content.styled("".join(pad_cells(h, COLUMN + 2) for h in heads), "bold"))
        base = self.base.top if self.base else []
        shown = self.shown
        for rank in range(5):
            cells = [
                piece_cell(column[rank])
                if rank < len(column)
                else t("working")
                if rank == 0
                else ""
                for column in (
                    base,
                    shown.consistent_top if shown else [],
                    shown.tokenizer_only_top if shown else [],
                )
            ]
            lines.append(Content("".join(pad_cells(c, COLUMN + 2) for c in cells).rstrip()))
        if shown:
            bound = rounding_bound(shown.consistent_max_abs_diff)
            lines.append(Content(t("renumber.same", bound=bound)))
        else:
            lines.append(Content(t("working")))
        lines.append(self._loss_line())
        lines.append(Content.styled(t("renumber.hint"), "dim"))
        return lines

    def _loss_line(self) -> Content:
        ctx = tutor_context(self)
        if self.base is None:
            return Content(ctx.t("working"))
        done, total = self.progress
        if self.loss is not None and self.loss.seed == self.seed:
            after = f"{self.loss.value:.3f}"
        elif total:
            after = ctx.t("renumber.progress", done=f"{done:,}", total=f"{total:,}")
        else:
            after = ctx.t("working")
        positions, before = f"{self.base.positions:,}", f"{self.base.val_loss:.3f}"
        losses = ctx.t("renumber.losses", positions=positions, before=before, after=after)
        chance = ctx.t("renumber.chance", chance=f"{self.base.chance:.3f}")
        return Content(losses + "\n" + chance)

    def render(self) -> Content:
        return Content("\n").join(self._lines())

    def plain_text(self) -> str:
        return "\n".join(line.plain for line in self._lines()[:-1])


def rounding_bound(diff: float) -> str:
    """The power of ten `diff` stays within: float64 rounding's exact size depends on the
    CPU's arithmetic kernels (2.2e-16 on one machine, 4.4e-16 on another), its decade
    does not."""
    return "0" if diff <= 0 else f"{10.0 ** math.ceil(math.log10(diff)):.0e}"
