"""A token's nearest tokens under each representation: id, one-hot, table before and after.

The same question asked four ways is the lesson's evidence: ID difference invents
closeness, one-hot has none (every token ties), the trained table has it. Ties are printed
as ties ("=1", with a line saying what "=" means, and how many more share the last score
when the list had no room for them) so sort order never fakes a ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking, still_shown
from tutor.tui.widgets.beside import BesideAnswer, ask_beside, beside_lines, beside_view
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.field import started_choice, started_text
from tutor.tui.widgets.update import update_in_place
from tutor.words.refusals import model_error, say

if TYPE_CHECKING:
    from tutor.content.widgets import NeighboursWidget
    from tutor.core.model import ProjectModel
    from tutor.core.similarity import Neighbour, NeighbourResult


def side_by_side(headers: list[str], columns: list[list[str]]) -> Content:
    """Columns of text padded by terminal cells (CJK is two), headers in bold."""
    widths = [
        max(cell_len(text) for text in [header, *column])
        for header, column in zip(headers, columns, strict=True)
    ]
    parts: list[str | tuple[str, str]] = []
    for header, width in zip(headers, widths, strict=True):
        parts.append((header + " " * (width - cell_len(header) + 2), "bold"))
    for row in range(max(len(column) for column in columns)):
        parts.append("\n")
        for column, width in zip(columns, widths, strict=True):
            text = column[row] if row < len(column) else ""
            parts.append(text + " " * (width - cell_len(text) + 2))
    return Content.assemble(*parts)


def score_text(scheme: str, score: float) -> str:
    """ID distances are whole numbers; distances and cosines get three decimals."""
    return f"{score:,.0f}" if scheme == "id" else f"{score:.3f}"


# A byte-level piece that is not a whole character, as the core writes it: <E7 8C>
BYTES = re.compile(r"<[0-9A-F]{2}(?: [0-9A-F]{2})*>")
WORKING_AFTER_S = 0.15  # an answer slower than this is announced as being worked on


@dataclass(frozen=True, slots=True)
class SchemeAnswer:
    scheme: str
    result: NeighbourResult | None
    error: str = ""


def find_neighbours(
    ctx: TutorContext, token: str, schemes: list[str], k: int, beside: bool = False
) -> list[SchemeAnswer]:
    """Each scheme's neighbours of `token`, or why there are none (in a worker); on the
    lesson's own model where a real one is shown `beside`."""
    from tutor.core.similarity import nearest

    try:
        model = (ctx.lesson_models if beside else ctx.models).get()
    except (ValueError, OSError) as exc:
        error = model_error(ctx, exc)
        return [SchemeAnswer(scheme, None, error) for scheme in schemes]
    answers = []
    for scheme in schemes:
        try:
            answers.append(SchemeAnswer(scheme, nearest(model, token, scheme, k)))
        except ValueError as exc:
            answers.append(SchemeAnswer(scheme, None, say(ctx, exc)))
    return answers


class NeighboursPanel(Asking, Vertical):
    """Pick (or type) a token; one column of neighbours per scheme."""

    DEFAULT_CSS = """
    NeighboursPanel { height: auto; }
    NeighboursPanel #other { width: 1fr; }
    """

    def __init__(self, config: NeighboursWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.token = config.tokens[0]
        self.answers: list[SchemeAnswer] = []
        self.beside: BesideAnswer | None = None

    def compose(self) -> ComposeResult:
        ctx, tokens = tutor_context(self), self.config.tokens
        # the token last asked about: picked on the bar or typed into the field
        self.token = started_text(self, "asked", self.token, read=lambda: self.token)
        index = started_choice(self, "choice", tokens)
        yield ChoiceBar(tokens, caption=ctx.t("nb.token"), index=index, id="choice")
        yield Input(started_text(self, "other"), placeholder=ctx.t("nb.other"), id="other")
        yield Static(id="heading")
        yield Static(id="table")
        yield Static(id="notes")
        if self.config.beside:  # with no real model, how to open one (nothing to ask)
            yield Static(beside_view(ctx, None), id="beside")

    def least_lines(self, width: int) -> int:
        """The token choices, the framed field and, answered, a line per neighbour."""
        return 1 + 3 + self.config.k

    def on_mount(self) -> None:
        self.call_after_refresh(self.ask_about, self.token)

    @on(ChoiceBar.Changed, "#choice")
    def _picked(self, event: ChoiceBar.Changed) -> None:
        self.ask_about(event.value)

    @on(Input.Submitted, "#other")
    def _typed(self, event: Input.Submitted) -> None:
        # an emptied field stands for the token chosen on the bar
        chosen = self.query_one("#choice", ChoiceBar).value
        self.ask_about(event.value.strip() or chosen)

    def ask_about(self, token: str) -> None:
        self.token = token
        ctx, schemes, k = tutor_context(self), list(self.config.schemes), self.config.k
        beside = self.config.beside
        self.ask(lambda: find_neighbours(ctx, token, schemes, k, beside), self._answered)
        # its own topic: the lesson's answer never waits for a big model
        if beside and ctx.beside_models is not None:

            def real(model: ProjectModel) -> list[Neighbour]:
                from tutor.core.similarity import nearest

                return nearest(model, token, "after", k).neighbours

            self.ask(lambda: ask_beside(ctx, real), self._beside, topic="beside")
        if self.pending:
            self.set_timer(WORKING_AFTER_S, self._say_working)

    def _say_working(self) -> None:
        """Only a slow answer (the model's first load) is announced: a quick one would
        cost a whole extra frame of the page for a word shown a few milliseconds."""
        if self.pending and still_shown(self):
            update_in_place(self.query_one("#heading", Static), tutor_context(self).t("working"))

    def _answered(self, answers: list[SchemeAnswer]) -> None:
        self.answers = answers
        self._show()

    def _beside(self, answer: BesideAnswer | None) -> None:
        self.beside = answer
        beside = self.query_one("#beside", Static)
        update_in_place(beside, beside_view(tutor_context(self), answer))

    def _show(self) -> None:
        ctx = tutor_context(self)
        found = next((a.result for a in self.answers if a.result is not None), None)
        heading = self.query_one("#heading", Static)
        table, notes = self.query_one("#table", Static), self.query_one("#notes", Static)
        if found is None:
            update_in_place(heading, Content.styled(self.answers[0].error, "bold $text-error"))
            update_in_place(table, "")
            update_in_place(notes, "")
            return
        update_in_place(
            heading,
            Content.styled(
                ctx.t("nb.heading", token=found.piece, id=found.id, k=self.config.k), "bold"
            ),
        )
        headers = [ctx.t(f"nb.scheme.{answer.scheme}") for answer in self.answers]
        columns = [self._column(answer) for answer in self.answers]
        update_in_place(table, side_by_side(headers, columns))
        update_in_place(notes, "\n".join(self._notes()))

    def _column(self, answer: SchemeAnswer) -> list[str]:
        """One cell per neighbour; a rank shared with the previous line is marked "=".

        An error (e.g. no before-table) is the column's only cell.
        """
        if answer.result is None:
            return [answer.error]
        cells = []
        for neighbour in answer.result.neighbours:
            rank = (
                f"={neighbour.rank}"
                if self._tied(answer.result, neighbour.rank)
                else f"{neighbour.rank}"
            )
            score = score_text(answer.scheme, neighbour.score)
            cells.append(f"{rank:>3} {neighbour.piece} #{neighbour.id} {score}")
        return cells

    @staticmethod
    def _tied(result: NeighbourResult, rank: int) -> bool:
        """Several tokens share this rank: shown together, or running past the list."""
        shown = sum(1 for n in result.neighbours if n.rank == rank)
        return shown > 1 or (rank == result.neighbours[-1].rank and result.tie_count > 1)

    def _notes(self) -> list[str]:
        """Ties that run past the shown list, said in words; what a byte piece is."""
        ctx = tutor_context(self)
        notes = []
        pieces = [n.piece for a in self.answers if a.result for n in a.result.neighbours]
        example = next((piece for piece in pieces if BYTES.fullmatch(piece)), None)
        if example is not None:
            notes.append(ctx.t("nb.bytes", piece=example))
        columns = [self._column(answer) for answer in self.answers if answer.result]
        marked = next(
            (cell.split()[0] for cells in columns for cell in cells if cell.lstrip()[:1] == "="),
            None,
        )
        if marked is not None:
            notes.append(ctx.t("nb.tie_mark", mark=marked, rank=marked[1:]))
        for answer in self.answers:
            result = answer.result
            if result is None or not result.neighbours:
                continue
            last = result.neighbours[-1]
            label = ctx.t(f"nb.scheme.{answer.scheme}")
            if answer.scheme == "onehot" and all(n.rank == 1 for n in result.neighbours):
                notes.append(
                    f"{label}: "
                    + ctx.t(
                        "nb.all_tied",
                        count=f"{result.tie_count:,}",
                        score=score_text("onehot", last.score),
                    )
                )
            elif result.ties_left_out > 0:
                notes.append(
                    f"{label}: "
                    + ctx.t(
                        "nb.ties",
                        count=f"{result.ties_left_out:,}",
                        score=score_text(answer.scheme, last.score),
                    )
                )
        return notes

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        lines = []
        for answer in self.answers:
            label = ctx.t(f"nb.scheme.{answer.scheme}")
            lines.append(f"{label}: " + "; ".join(self._column(answer)))
        beside = beside_lines(ctx, self.beside) if self.config.beside else []
        head = f"{ctx.t('nb.token')}: {self.token}"
        return "\n".join([head, *lines, *self._notes(), *beside])
