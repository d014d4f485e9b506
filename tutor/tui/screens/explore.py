"""`tutor explore [--model DIR]`: any model's input table, asked the lesson's questions.

Not a lesson page: a workbench for the shipped model or one a learner or teacher has on
disk. Type text and see its tokens, IDs and bytes; pick one and see its neighbours by
cosine beside its neighbours by ID (ID closeness means nothing in a real model either);
an analogy a - b + c; the lesson's heatmap over the text's tokens; and the table's shape
and cost. Every answer is computed in a worker (the shared `Asking` helper); only the
newest answer of each kind shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import Asking
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.keybar import KeyBar, typing_into
from tutor.words.refusals import disagreement, say_or_model_error

if TYPE_CHECKING:
    from tutor.core.model import BeforeKind, ProjectModel, TableShape
    from tutor.core.similarity import Neighbour, NeighbourResult
    from tutor.core.tokenize import Token

HEATMAP_LIMIT = 20  # tokens in the heatmap: 20 columns of 3 cells fit 80 columns
SHOWN_TOKENS = 12  # token rows listed before "… and N more"
PICK_LIMIT = 40  # tokens offered to pick from: a long paste must not make a bar of thousands
K = 6
SHOWN_BYTES = 12  # a token's bytes listed before "…+N": an unknown long word stays one line
DEFAULT_TEXT = {"zh": "猫和狗都喜欢吃鱼", "en": "the cat and the dog like fish"}


@dataclass(frozen=True, slots=True)
class TokenView:
    """The typed text as the model sees it, and its distinct tokens for the heatmap."""

    tokens: list[Token]
    bytes_of: list[str]  # each token's bytes in hex
    distinct: list[str]  # distinct non-special pieces, in order of appearance
    reserved: frozenset[int]  # the text's special tokens and placeholders, marked in the list


def token_view(model: ProjectModel, text: str) -> TokenView:
    scheme = model.scheme
    tokens = scheme.encode(text)
    raw = [scheme.token_bytes(t, text) for t in tokens]
    distinct = list(
        dict.fromkeys(t.piece for t in tokens if t.id not in scheme.special_ids and t.piece)
    )
    reserved = frozenset(t.id for t in tokens) & scheme.reserved_ids
    return TokenView(tokens, [hex_bytes(data) for data in raw], distinct, reserved)


def example_text(model: ProjectModel, lang: str) -> str:
    """The example in the interface's language, unless the model's vocabulary reads the
    other one better (less of it becomes [UNK] or another special token): an English
    model gets English."""
    scheme = model.scheme

    def unknown(text: str) -> float:
        tokens = scheme.encode(text)
        return sum(t.end - t.start for t in tokens if t.id in scheme.special_ids) / len(text)

    other = next(text for language, text in DEFAULT_TEXT.items() if language != lang)
    return other if unknown(other) < unknown(DEFAULT_TEXT[lang]) else DEFAULT_TEXT[lang]


def hex_bytes(data: bytes) -> str:
    """Bytes in hex, the first SHOWN_BYTES of them, then how many more."""
    shown = data[:SHOWN_BYTES].hex(" ").upper()
    return shown + (f" …+{len(data) - SHOWN_BYTES}" if len(data) > SHOWN_BYTES else "")


@dataclass(frozen=True, slots=True)
class NeighbourView:
    by_cosine: NeighbourResult
    by_id: NeighbourResult


def neighbour_view(model: ProjectModel, piece: str) -> NeighbourView:
    from tutor.core.similarity import nearest

    return NeighbourView(
        nearest(model, piece, "after", K, exact=True), nearest(model, piece, "id", K, exact=True)
    )


def analogy_view(model: ProjectModel, text: str) -> list[Neighbour] | None:
    """None when the text is not three tokens."""
    from tutor.core.similarity import analogy

    words = text.split()
    if len(words) != 3:
        return None
    return analogy(model, *words, k=K)


def columns(headers: list[str], rows: list[list[str]]) -> str:
    """Rows of cells padded by terminal cells (CJK is two)."""
    widths = [max(cell_len(c) for c in column) for column in zip(headers, *rows, strict=True)]
    return "\n".join(
        "  ".join(
            cell + " " * (w - cell_len(cell)) for cell, w in zip(row, widths, strict=True)
        ).rstrip()
        for row in [headers, *rows]
    )


class Bench(Asking, VerticalScroll):
    """The workbench's scrolling body; asks the core through the shared helper.

    Asking, a Widget, comes first in the bases, and Widget's own defaults (no overflow)
    then win over VerticalScroll's: the scrolling is restated here."""

    DEFAULT_CSS = "Bench { height: 1fr; overflow-y: auto; }"


class ExploreScreen(Screen[None]):
    """The workbench; Tab moves between its parts, Esc goes back."""

    CSS_PATH = "page.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "key.back"),
    ]
    DEFAULT_CSS = """
    ExploreScreen #explore-body > * { height: auto; margin-bottom: 1; }
    ExploreScreen #explore-body > .caption { margin-bottom: 0; }
    ExploreScreen #heat { height: auto; }
    """

    ESC_LEAVES_FIELDS: ClassVar[bool] = True  # the key line says so while a field has focus
    help_key = "help.explore"

    def __init__(self) -> None:
        super().__init__(name="explore")
        self._pieces: list[str] = []  # the text's tokens, as the pick bar lists them
        self._heat_tokens = 0  # distinct tokens of the text (the heatmap draws 20)
        self._before: BeforeKind | None = None  # known once the shapes are in

    def help_title(self) -> str:
        return tutor_context(self).t("explore.title")

    def _header(self, static: bool = False) -> Content:
        """The title and the model's name; a static embedding model says it is one."""
        ctx = tutor_context(self)
        name = ctx.model_dir.name if ctx.model_dir else ctx.t("explore.shipped")
        kind = [" · ", ctx.t("explore.static")] if static else []
        return Content.assemble(
            (ctx.t("explore.title"), "bold"), " · ", ctx.t("explore.model", name=name), *kind
        )

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield Static(self._header(), id="page-header")
        with Bench(id="explore-body"):
            yield Static(ctx.t("model.loading"), id="shapes")
            yield Static(Content.styled(ctx.t("explore.text"), "bold"), classes="caption")
            yield Input(DEFAULT_TEXT[ctx.lang], placeholder=ctx.t("explore.text"), id="text")
            yield Static(ctx.t("model.loading"), id="tokens")
            yield ChoiceBar(["…"], caption=ctx.t("explore.pick"), id="pick")
            yield Static("", id="neighbours")
            yield Static(Content.styled(ctx.t("explore.analogy"), "bold"), classes="caption")
            yield Input(placeholder="a b c", id="analogy")
            yield Static("", id="analogy-out")
            yield Static(ctx.t("model.loading"), id="heat-note")
            yield Vertical(id="heat")
        yield KeyBar()

    def on_mount(self) -> None:
        self._ask("shapes", self._shape_of, self._show_shapes)
        self._ask_tokens(self.query_one("#text", Input).value)
        self.query_one("#text", Input).focus()
        lang = tutor_context(self).lang
        self._ask("example", lambda model: example_text(model, lang), self._show_example)

    def _show_example(self, text: str) -> None:
        """The example follows the model's vocabulary, unless the learner has typed."""
        field = self.query_one("#text", Input)
        if field.value == DEFAULT_TEXT[tutor_context(self).lang]:
            field.value = text

    # the one way this screen computes ---------------------------------------

    def _ask(self, kind: str, compute: Callable[[ProjectModel], Any], show: Callable) -> None:
        """Compute in a worker through the shared helper: one worker per kind, only the
        newest waiting question runs next (a search of a 2.5 GB table takes a second or
        two), only the newest answer is shown. An error the core explains is an answer."""
        models = tutor_context(self).models

        def answer() -> object:
            try:
                return compute(models.get())
            except (ValueError, OSError) as exc:
                return exc

        def shown(answer: object) -> None:
            if isinstance(answer, Exception):
                self._show_error(kind, answer)
            else:
                show(answer)

        self.query_one("#explore-body", Bench).ask(answer, shown, topic=kind)

    def _show_error(self, kind: str, error: Exception) -> None:
        target = {
            "tokens": "#tokens",
            "example": "#tokens",
            "neighbours": "#neighbours",
            "shapes": "#shapes",
        }
        text = say_or_model_error(tutor_context(self), error)
        self.query_one(target.get(kind, "#analogy-out"), Static).update(
            Content.styled(text, "bold $text-error")
        )

    # shapes ------------------------------------------------------------------

    @staticmethod
    def _shape_of(model: ProjectModel) -> TableShape:
        from tutor.core.model import table_shape

        return table_shape(model)

    def _show_shapes(self, shape: TableShape) -> None:
        ctx = tutor_context(self)
        self._before = shape.before
        self._show_heat_note()
        text = ctx.t(
            "explore.shapes",
            v=f"{shape.vocab:,}",
            d=f"{shape.dim:,}",
            dtype=shape.dtype,
            params=f"{shape.table_parameters:,}",
            total=f"{shape.total_parameters:,}",
            share=f"{shape.share:.1%}",
            head=ctx.t(f"explore.head.{shape.head}", rows=f"{shape.rows:,}"),
            size=f"{shape.weights_bytes / 2**20:,.1f} MB",
            before=ctx.t(f"explore.before.{shape.before}"),
        )
        for differs in shape.disagreements:
            text += "\n" + disagreement(ctx, differs.field, differs.config, differs.weights)
        self.query_one("#shapes", Static).update(Content(text))
        if shape.head == "static":
            self.query_one("#page-header", Static).update(self._header(static=True))

    # tokens ------------------------------------------------------------------

    @on(Input.Changed, "#text")
    def _text_changed(self, event: Input.Changed) -> None:
        self._ask_tokens(event.value)

    def _ask_tokens(self, text: str) -> None:
        self._ask("tokens", lambda model: token_view(model, text), self._show_tokens)

    def _show_tokens(self, view: TokenView) -> None:
        ctx = tutor_context(self)
        mark = " " + ctx.t("explore.reserved")
        rows = [
            [str(n), str(t.id), repr(t.piece) + (mark if t.id in view.reserved else ""), data]
            for n, (t, data) in enumerate(zip(view.tokens, view.bytes_of, strict=True))
        ]
        headers = ["#", "id", ctx.t("explore.col.piece"), ctx.t("explore.col.bytes")]
        shown = columns(headers, rows[:SHOWN_TOKENS])
        count = "explore.tokens_one" if len(rows) == 1 else "explore.tokens"
        lines = [ctx.t(count, count=len(rows)), shown]
        if len(rows) > SHOWN_TOKENS:
            lines.append(ctx.t("explore.more", count=len(rows) - SHOWN_TOKENS))
        self.query_one("#tokens", Static).update(Content("\n".join(lines)))
        pieces = view.distinct[:PICK_LIMIT] or ["…"]
        if pieces != self._pieces:
            self._pieces = pieces
            self.query_one("#pick", ChoiceBar).set_options(pieces)
            self._ask_neighbours(pieces[0])
            self._show_heatmap(view.distinct)

    # neighbours --------------------------------------------------------------

    @on(ChoiceBar.Changed, "#pick")
    def _picked(self, event: ChoiceBar.Changed) -> None:
        self._ask_neighbours(event.value)

    def _ask_neighbours(self, piece: str) -> None:
        if piece == "…":
            self.query_one("#neighbours", Static).update("")
            return
        self._ask("neighbours", lambda model: neighbour_view(model, piece), self._show_neighbours)

    def _show_neighbours(self, view: NeighbourView) -> None:
        ctx = tutor_context(self)
        cosine = [f"{n.piece!r} {n.id} {n.score:.3f}" for n in view.by_cosine.neighbours]
        mark = " " + ctx.t("explore.reserved")
        by_id = [f"{n.piece!r} {n.id}{mark if n.reserved else ''}" for n in view.by_id.neighbours]
        rows = [list(pair) for pair in zip(cosine, by_id, strict=False)]
        title = ctx.t("explore.neighbours_of", piece=view.by_cosine.piece, id=view.by_cosine.id)
        table = columns([ctx.t("explore.by_cosine"), ctx.t("explore.by_id")], rows)
        self.query_one("#neighbours", Static).update(Content(f"{title}\n{table}"))

    # analogy -----------------------------------------------------------------

    @on(Input.Submitted, "#analogy")
    @on(Input.Changed, "#analogy")
    def _analogy_changed(self, event: Input.Changed | Input.Submitted) -> None:
        text = event.value
        self._ask("analogy", lambda model: analogy_view(model, text), self._show_analogy)

    def _show_analogy(self, found: list[Neighbour] | None) -> None:
        ctx = tutor_context(self)
        out = self.query_one("#analogy-out", Static)
        if found is None:
            out.update(Content.styled(ctx.t("explore.analogy.need"), "dim"))
            return
        rows = [[str(n.rank), repr(n.piece), str(n.id), f"{n.score:.3f}"] for n in found]
        out.update(Content(columns(["#", "token", "id", "cos"], rows)))

    # heatmap -----------------------------------------------------------------

    def _show_heatmap(self, distinct: list[str]) -> None:
        """A fresh lesson heatmap over the text's first 20 distinct tokens."""
        from tutor.content.widgets import HeatmapWidget
        from tutor.tui.widgets.heatmap import Heatmap

        heat = self.query_one("#heat", Vertical)
        heat.remove_children()
        self._heat_tokens = len(distinct)
        self._show_heat_note()
        if len(distinct) >= 2:
            config = HeatmapWidget(tokens=distinct[:HEATMAP_LIMIT], stage="after")
            heat.mount(Heatmap(config))

    def _show_heat_note(self) -> None:
        """How many tokens the heatmap draws, and what its "before" stage is for this model
        (a re-created table is said to be one)."""
        ctx = tutor_context(self)
        count = self._heat_tokens
        note = ctx.t("explore.heatmap", limit=HEATMAP_LIMIT)
        if count < 2:
            note = ctx.t("explore.heatmap.few")
        elif count > HEATMAP_LIMIT:
            note = ctx.t("explore.heatmap.cut", count=count, limit=HEATMAP_LIMIT)
        parts: list[str | tuple[str, str]] = [(note, "bold")]
        if self._before is not None and count >= 2:
            parts += ["\n", (ctx.t(f"explore.heatmap.before.{self._before}"), "italic")]
        self.query_one("#heat-note", Static).update(Content.assemble(*parts))

    def action_back(self) -> None:
        """esc leaves a text field for the workbench (typing keys there type); on the
        workbench itself it goes back."""
        if typing_into(self.focused):
            self.set_focus(None)  # Tab comes back to the first part
        else:
            self.app.pop_screen()
