"""Cosine similarity of about 20 tokens' rows, before and after training.

Every cell carries its value three ways: a colour, a shade glyph (readable under NO_COLOR
and in monochrome terminals) and, on demand, the number itself; the cell under the cursor
is spelled out below the grid, so a screen reader gets exact values too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive

from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking
from tutor.tui.widgets.field import started_text
from tutor.tui.widgets.flow import Flow
from tutor.words.refusals import say_or_model_error

if TYPE_CHECKING:
    import numpy as np

    from tutor.content.widgets import HeatmapWidget

# (lowest cosine in the band, glyph, colour); the first band a value reaches is its band.
SCALE: tuple[tuple[float, str, str], ...] = (
    (0.8, "██", "#d62728"),
    (0.6, "▓▓", "#ff7f0e"),
    (0.4, "▒▒", "#bcbd22"),
    (0.2, "░░", "#17becf"),
    (0.0, "··", "#7f7f7f"),
    (-1.0, "--", "#1f77b4"),
)


def band(value: float) -> tuple[str, str]:
    for low, glyph, colour in SCALE:
        if value >= low:
            return glyph, colour
    return SCALE[-1][1], SCALE[-1][2]


def legend_ranges() -> list[tuple[str, str, str]]:
    """(glyph, colour, range text) for each band, highest first."""
    rows = []
    upper = "1.0"
    for low, glyph, colour in SCALE:
        low_text = "-1.0" if low == -1.0 else f"{low:.1f}"
        rows.append((glyph, colour, f"{low_text}…{upper}"))
        upper = f"{low:.1f}"
    return rows


def number_cell(value: float) -> str:
    """Cosine x 100 in four cells, a space before the sign ("  -15", "   8"), so that two
    negatives side by side read as two numbers; 1.0 (a token with itself) keeps its
    full-band glyph. The cursor line and the plain-text reading give every exact value."""
    hundredths = round(value * 100)
    if hundredths >= 100:
        return f"  {SCALE[0][1]}"
    return f"{max(hundredths, -99):{NUMBER_WIDTH}d}"


NUMBER_WIDTH = 4  # a cell in numbers mode; in shades mode a cell is 3 (" ██")
MORE = 2  # the " →" after the column numbers, or "← " before them, when columns are left out


def column_window(column: int, size: int, fits: int) -> range:
    """The grid columns drawn when only `fits` do: the block of them holding `column`."""
    if fits >= size:
        return range(size)
    start = min(column // fits * fits, size - fits)
    return range(start, start + fits)


CHROME_ROWS = 3  # the page's header line and (at most) two key lines around the body
MIN_GRID_ROWS = 3


@dataclass(frozen=True, slots=True)
class Computed:
    stage: str
    pieces: list[str]
    matrix: np.ndarray | None
    error: str = ""


def compute(ctx: TutorContext, tokens: list[str], stage: str) -> Computed:
    """Cosine of every pair of the tokens' rows in the stage's table (in a worker)."""
    from tutor.core.similarity import similarity

    try:
        pieces, matrix = similarity(ctx.models.get(), tokens, stage)
    except (ValueError, OSError) as exc:
        return Computed(stage, [], None, say_or_model_error(ctx, exc))
    return Computed(stage, pieces, matrix)


def pad_cells(text: str, width: int) -> str:
    return text + " " * max(width - cell_len(text), 0)


class Heatmap(Asking, can_focus=True):
    """Arrows move the cursor; s switches before/after; v switches shades/numbers."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1, 0)", "key.move", key_display="↑↓←→"),
        Binding("down", "move(1, 0)", "key.move", show=False),
        Binding("left", "move(0, -1)", "key.move", show=False),
        Binding("right", "move(0, 1)", "key.move", show=False),
        Binding("s", "toggle_stage", "key.stage"),
        Binding("v", "toggle_numbers", "key.numbers"),
    ]

    DEFAULT_CSS = """
    Heatmap { height: auto; width: 100%; text-wrap: nowrap; }
    """

    stage: reactive[str] = reactive("before")
    numbers: reactive[bool] = reactive(False)
    cursor: reactive[tuple[int, int]] = reactive((0, 1))

    def __init__(self, config: HeatmapWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.pieces = list(config.tokens)
        self.matrices: dict[str, np.ndarray] = {}
        self.errors: dict[str, str] = {}  # per stage: a model may lack its initial table
        self._asked: set[str] = set()  # stages computed or being computed
        self._top = 0  # the first grid row drawn
        self.set_reactive(Heatmap.stage, config.stage)

    def least_lines(self, width: int) -> int:
        """Fewest lines the drawn grid takes (see `render`): title, readout, column numbers,
        legend and hint, and every row or as many as the terminal leaves room for."""
        return min(len(self.pieces) + 5, self.app.size.height - CHROME_ROWS)

    def on_mount(self) -> None:
        # without colour, a shade is a grey level among five: numbers are read at once
        self.set_reactive(Heatmap.numbers, self.app.no_color)
        self._restore(started_text(self, "view", self._view(), read=self._view))
        self.call_after_refresh(self._ask, self.stage)

    def _view(self) -> str:
        """What the learner set: the stage, numbers or shades, and the cursor's cell."""
        row, column = self.cursor
        return f"{self.stage} {int(self.numbers)} {row} {column}"

    def _restore(self, view: str) -> None:
        """The view kept from the page's last build (see `_view`), where it still fits."""
        match view.split():
            case [("before" | "after") as stage, ("0" | "1") as numbers, row, column] if (
                row.isdigit() and column.isdigit()
            ):
                self.set_reactive(Heatmap.stage, stage)
                self.set_reactive(Heatmap.numbers, numbers == "1")
                size = len(self.pieces)
                self.set_reactive(
                    Heatmap.cursor, (min(int(row), size - 1), min(int(column), size - 1))
                )

    def watch_stage(self, stage: str) -> None:
        self._ask(stage)
        self.refresh(layout=True)

    def _ask(self, stage: str) -> None:
        if stage not in self._asked:
            self._asked.add(stage)
            ctx, tokens = tutor_context(self), list(self.config.tokens)
            self.ask(lambda: compute(ctx, tokens, stage), self._computed, topic=stage)

    def _computed(self, computed: Computed) -> None:
        if computed.matrix is None:
            self.errors[computed.stage] = computed.error
        else:
            self.pieces = computed.pieces
            self.matrices[computed.stage] = computed.matrix
            # Nearly every learner's next key is s: have the other stage ready by then.
            self._ask("after" if computed.stage == "before" else "before")
        if computed.stage == self.stage:
            self.refresh(layout=True)

    def action_move(self, rows: int, columns: int) -> None:
        size = len(self.pieces)
        row, column = self.cursor
        self.cursor = ((row + rows) % size, (column + columns) % size)

    def action_toggle_stage(self) -> None:
        self.stage = "after" if self.stage == "before" else "before"

    def action_toggle_numbers(self) -> None:
        self.numbers = not self.numbers

    @property
    def error(self) -> str:
        """Why the shown stage cannot be drawn, or ""."""
        return self.errors.get(self.stage, "")

    @property
    def matrix(self) -> np.ndarray | None:
        return self.matrices.get(self.stage)

    def cell_text(self, row: int, column: int) -> str:
        ctx = tutor_context(self)
        assert self.matrix is not None
        score = f"{self.matrix[row, column]:.3f}"
        return ctx.t("heat.cell", a=self.pieces[row], b=self.pieces[column], score=score)

    def _cell(self, value: float, selected: bool) -> tuple[str, str]:
        glyph, colour = band(value)
        text = number_cell(value) if self.numbers else f" {glyph}"
        style = f"bold {colour}" + (" reverse" if selected else "")
        return text, style

    def _window(self, fixed_lines: int) -> range:
        """The grid rows drawn: all that fit the terminal beside the widget's other lines,
        always with the cursor's row among them (at 80x24 not all 20 fit)."""
        size = len(self.pieces)
        room = self.app.size.height - CHROME_ROWS - fixed_lines
        shown = min(size, max(room, MIN_GRID_ROWS))
        row = self.cursor[0]
        if row < self._top:
            self._top = row
        elif row >= self._top + shown:
            self._top = row - shown + 1
        self._top = min(self._top, size - shown)
        return range(self._top, self._top + shown)

    def render(self) -> Content:
        ctx = tutor_context(self)
        stage_name = ctx.t(f"heat.stage.{self.stage}")
        title = ctx.t("heat.title", count=len(self.pieces), stage=stage_name)
        if self.error:
            return Content.assemble((title, "bold"), "\n", (self.error, "bold $text-error"))
        if self.matrix is None:
            return Content.assemble((title, "bold"), "\n", ctx.t("model.loading"))
        width = max(self.content_size.width, 1)
        legend = Flow(
            [Content.styled(ctx.t("heat.legend") + ":", "bold")]
            + [
                Content.assemble((glyph, f"bold {colour}"), f" {text}")
                for glyph, colour, text in legend_ranges()
            ]
        ).content(width)
        notes = [Content.styled(ctx.t("heat.numbers"), "italic")] if self.numbers else []
        hint = Flow(
            Content.styled(ctx.t(f"heat.hint.{key}"), "dim") for key in ("move", "stage", "numbers")
        ).content(width)
        fixed = 3 + len(legend.split()) + len(notes) + len(hint.split())
        rows = self._window(fixed)
        size = len(self.pieces)
        if len(rows) < size:
            title += " · " + ctx.t("heat.rows", first=rows.start + 1, last=rows.stop, count=size)
        row, column = self.cursor
        labels = [f"{n + 1:>2} {piece}" for n, piece in enumerate(self.pieces)]
        label_width = max(cell_len(label) for label in labels) + 1
        cell_width = NUMBER_WIDTH if self.numbers else 3
        columns = range(size)
        if label_width + cell_width * size > width:  # numbers: columns follow the cursor
            columns = column_window(
                column, size, max((width - label_width - MORE) // cell_width, 1)
            )
        left = "← " if columns.start > 0 else ""
        right = " →" if columns.stop < size else ""
        numbers = "".join(f"{n + 1:{cell_width}d}" for n in columns)
        lines: list[Content] = [
            Content.styled(title, "bold"),
            Content.styled(self.cell_text(row, column), "bold"),
            Content(pad_cells(left, label_width) + numbers + right),
        ]
        for grid_row in rows:
            cells = [
                self._cell(
                    float(self.matrix[grid_row, col]),
                    self.has_focus and (grid_row, col) == self.cursor,
                )
                for col in columns
            ]
            lines.append(Content.assemble(pad_cells(labels[grid_row], label_width), *cells))
        return Content("\n").join([*lines, legend, *notes, hint])

    def watch_cursor(self) -> None:
        self.refresh(layout=True)

    def watch_numbers(self) -> None:
        self.refresh(layout=True)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def plain_text(self) -> str:
        """One line per token with its cosine to every other: the grid as sentences."""
        ctx = tutor_context(self)
        stage_name = ctx.t(f"heat.stage.{self.stage}")
        if self.matrix is None:
            return self.error or ctx.t("model.loading")
        lines = [ctx.t("heat.title", count=len(self.pieces), stage=stage_name)]
        for row, piece in enumerate(self.pieces):
            others = ", ".join(
                f"{other} {self.matrix[row, column]:.2f}"
                for column, other in enumerate(self.pieces)
                if column != row
            )
            lines.append(f"{piece}: {others}")
        return "\n".join(lines)
