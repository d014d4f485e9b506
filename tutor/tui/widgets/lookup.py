"""one-hot × E = the rows: the whole sentence on a small table, then one token at real scale.

The small view is real: the sentence's tokens (plus a few others) renumbered from 0 in
the order of their IDs in the project model (so a row number is not a place in the
sentence, and a repeated token is a repeated one-hot row), each row the first
`small_dim` numbers of that token's row in the project model's trained table. The
sentence's one-hot matrix X (T × V) times E (V × d) is a real matrix product computed by
the core, drawn with all T rows: side by side where the width allows, E above X and
X × E where it does not (80 columns). The real-scale view takes Qwen3.8's V and d and the
running sentence's IDs and tokens from the cited facts (or, under `--model`, the opened
model's own, measured on it): one picked token's one-hot row of V columns and E's V rows,
abbreviated with ellipses, their edges labelled; the numbers are not drawn, only the
shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.field import started_choice
from tutor.tui.widgets.numbers import number
from tutor.words.refusals import say_or_model_error

if TYPE_CHECKING:
    import numpy as np

    from tutor.content.widgets import LookupWidget

# Cited facts for the real-scale view (Qwen3.8's vocabulary, width, and the running
# sentence's IDs and the tokens they stand for, space-separated).
REAL_VOCAB = "qwen38.vocab_size"
REAL_DIM = "qwen38.hidden_size"
REAL_SENTENCE_IDS = "qwen38.sentence_ids"
REAL_SENTENCE_PIECES = "qwen38.sentence_pieces"

# Tokens that fill the small vocabulary after the sentence's own: everyday words whose
# rows the learner meets elsewhere in the lesson.
FILLER_TEXT = "猫狗汽车香蕉你我的是"


@dataclass(frozen=True, slots=True)
class SmallTable:
    pieces: list[str]  # local id -> piece
    model_ids: list[int]  # local id -> id in the project model
    sentence: list[int]  # the sentence as local ids
    weights: np.ndarray  # small_vocab x small_dim
    model_shape: tuple[int, int, int]  # the whole model's T (the sentence), V and d


def build_small_table(model, sentence: str, vocab: int, dim: int) -> SmallTable:
    """The sentence's distinct tokens, then filler tokens, up to `vocab` rows, numbered
    from 0 in the order of their IDs in the model: a fixed order the sentence does not
    choose, as a real vocabulary's is."""
    import numpy as np

    scheme = model.scheme
    sentence_tokens = scheme.encode(sentence)
    model_ids: list[int] = []
    for token in [*sentence_tokens, *scheme.encode(FILLER_TEXT)]:
        if token.id not in model_ids and len(model_ids) < vocab:
            model_ids.append(token.id)
    model_ids.sort()
    local = {model_id: n for n, model_id in enumerate(model_ids)}
    rows = model.table("after").lookup(model_ids)[:, :dim]
    return SmallTable(
        pieces=[scheme.id_to_piece(i) for i in model_ids],
        model_ids=model_ids,
        sentence=[local[t.id] for t in sentence_tokens if t.id in local],
        weights=np.ascontiguousarray(rows, dtype=np.float32),
        model_shape=(len(sentence_tokens), *model.table_shape),
    )


def build(ctx: TutorContext, sentence: str, vocab: int, dim: int) -> SmallTable | str:
    """The small table, or why the model cannot give it (in a worker)."""
    try:
        return build_small_table(ctx.models.get(), sentence, vocab, dim)
    except (ValueError, OSError) as exc:
        return say_or_model_error(ctx, exc)


def abbreviated(size: int, keep: set[int]) -> list[int | None]:
    """Indices 0..size-1 to draw: those in `keep` (and the two ends), None for each run
    of indices left out (drawn as …)."""
    shown = sorted({0, size - 1, *(i for i in keep if 0 <= i < size)})
    out: list[int | None] = []
    for index in shown:
        if out and out[-1] is not None and index - out[-1] > 1:
            out.append(None)
        out.append(index)
    return out


Line = list[tuple[str, str]]  # one drawn line: (text, style) pieces


def width_of(line: Line) -> int:
    return sum(cell_len(text) for text, _style in line)


def pad(line: Line, width: int) -> Line:
    return [*line, (" " * max(width - width_of(line), 0), "")]


def beside(blocks: list[list[Line]]) -> list[Line]:
    """Blocks of lines side by side, top-aligned, each padded to its widest line."""
    widths = [max((width_of(line) for line in block), default=0) for block in blocks]
    out = []
    for y in range(max(len(block) for block in blocks)):
        line: Line = []
        for block, width in zip(blocks, widths, strict=True):
            line += pad(block[y] if y < len(block) else [], width)
        out.append(line)
    return out


def operator(sign: str, rows: int) -> list[Line]:
    """A matrix operator as a block: beside matrices of `rows` rows under a heading line,
    level with their middle row."""
    return [*([[]] * (1 + (rows - 1) // 2)), [(sign, "bold")]]


def as_content(lines: list[Line]) -> Content:
    parts: list[tuple[str, str]] = []
    for n, line in enumerate(lines):
        parts += [
            (text.rstrip() if k == len(line) - 1 else text, style)
            for k, (text, style) in enumerate(line)
        ]
        if n < len(lines) - 1:
            parts.append(("\n", ""))
    return Content.assemble(*parts)


def edge(first: int, last: int, label: str) -> Line:
    """├── label ──┤ from column `first` to `last` (inclusive): a matrix's edge, labelled."""
    span = max(last - first + 1, cell_len(label) + 4)
    dashes = span - 2 - cell_len(label) - 2
    left = dashes // 2
    return [
        (" " * first, ""),
        ("├" + "─" * left + " ", "dim"),
        (label, "bold"),
        (" " + "─" * (dashes - left) + "┤", "dim"),
    ]


class LookupDemo(Asking, Vertical):
    """The sentence's one-hot matrix times E, row by row; at real scale, one token's row."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("s", "toggle_scale", "key.scale")]

    DEFAULT_CSS = """
    LookupDemo { height: auto; }
    LookupDemo > Static { height: auto; }
    LookupDemo #view { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, config: LookupWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.table: SmallTable | None = None
        self.error = ""
        self.real_scale = False
        self.position = 0  # which token of the sentence is picked, at the scale shown

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        real = "lookup.scale.opened" if ctx.model_dir is not None else "lookup.scale.real"
        scales = ["small", "real"]
        index = started_choice(self, "scale", scales)
        self.real_scale = scales[index] == "real"
        yield ChoiceBar(
            scales,
            [ctx.t("lookup.scale.small"), ctx.t(real)],
            caption=ctx.t("lookup.title"),
            index=index,
            id="scale",
        )
        yield ChoiceBar(["…"], caption=ctx.t("lookup.pick"), id="token")
        yield Static(ctx.t("model.loading"), id="view")  # the matrices, drawn: never wrapped
        yield Static(id="notes")  # what they show, in words

    def least_lines(self, width: int) -> int:
        """The two choice lines and at least a line of the view."""
        return 1 + 1 + 1

    def on_mount(self) -> None:
        ctx, config = tutor_context(self), self.config
        self.call_after_refresh(
            self.ask,
            lambda: build(ctx, config.sentence, config.small_vocab, config.small_dim),
            self._built,
        )

    def _built(self, built: SmallTable | str) -> None:
        if isinstance(built, str):
            self.error = built
        else:
            self.table = built
            self._offer_tokens()
        self._show()

    def _offer_tokens(self) -> None:
        """The picker offers the sentence as the model at this scale cuts it."""
        labels = self.real_tokens()[1] if self.real_scale else self.small_tokens()
        self.position = 0
        self.query_one("#token", ChoiceBar).set_options(
            [str(n) for n in range(len(labels))], labels
        )

    def small_tokens(self) -> list[str]:
        assert self.table is not None
        return [self.table.pieces[local] for local in self.table.sentence]

    def real_tokens(self) -> tuple[list[int], list[str]]:
        """The sentence's IDs in the real-scale model and the tokens they stand for: cited
        for Qwen3.8 (the running sentence), an opened model's own (the widget's sentence)."""
        ctx = tutor_context(self)
        assert self.table is not None
        if ctx.model_dir is not None:
            ids = [self.table.model_ids[local] for local in self.table.sentence]
            return ids, self.small_tokens()
        ids = [int(i) for i in ctx.facts[REAL_SENTENCE_IDS].value]
        return ids, str(ctx.facts[REAL_SENTENCE_PIECES].value).split()

    def real_shape(self) -> tuple[int, int, int]:
        """T, V and d at real scale: cited for Qwen3.8, measured under --model."""
        ctx = tutor_context(self)
        assert self.table is not None
        if ctx.model_dir is not None:
            return self.table.model_shape
        facts = ctx.facts
        return (
            len(facts[REAL_SENTENCE_IDS].value),
            int(facts[REAL_VOCAB].value),
            int(facts[REAL_DIM].value),
        )

    @on(ChoiceBar.Changed, "#token")
    def _token_changed(self, event: ChoiceBar.Changed) -> None:
        self.position = event.index
        self._show()

    @on(ChoiceBar.Changed, "#scale")
    def _scale_changed(self, event: ChoiceBar.Changed) -> None:
        self.real_scale = event.value == "real"
        if self.table is not None:
            self._offer_tokens()
        self._show()

    def action_toggle_scale(self) -> None:
        self.query_one("#scale", ChoiceBar).action_move(1)

    def on_resize(self) -> None:
        if self.table is not None:
            self._show()

    def _show(self) -> None:
        view = self.query_one("#view", Static)
        if self.table is None:
            view.update(Content.styled(self.error, "bold $text-error"))
            return
        width = view.content_region.width or 80
        drawing, notes = self._real_lines() if self.real_scale else self._small_lines(width)
        view.update(as_content(drawing))
        self.query_one("#notes", Static).update(as_content(notes))

    def products(self) -> np.ndarray:
        """One-hot matrix of the sentence (T × V) times E (V × d), computed as a product."""
        from tutor.core.table import EmbeddingTable

        assert self.table is not None
        return EmbeddingTable(self.table.weights).one_hot_matmul(self.table.sentence)

    def _small_lines(self, width: int) -> tuple[list[Line], list[Line]]:
        """X (T × V) × E (V × d) = X × E (T × d): side by side where the width allows,
        else E above X and its product; the picked token's row, 1 and rows stand out."""
        import numpy as np  # loaded already: the worker built the table with it

        ctx = tutor_context(self)
        assert self.table is not None
        table = self.table
        vocab, dim = table.weights.shape
        tokens, picked = len(table.sentence), table.sentence[self.position]
        products = self.products()
        cells = [max(cell_len(number(v)) for v in table.weights[:, j]) for j in range(dim)]

        def values(row: np.ndarray, style: str) -> Line:
            text = " ".join(number(v).rjust(cell) for v, cell in zip(row, cells, strict=True))
            return [(text, style)]

        columns = abbreviated(vocab, set(range(vocab)) if vocab <= 12 else set(table.sentence))
        piece_width = max(cell_len(piece) for piece in table.pieces)
        x_block: list[Line] = [[(f"one-hot X [{tokens} × {vocab}]", "bold")]]
        xe_block: list[Line] = [[(f"X × E [{tokens} × {dim}]", "bold")]]
        for position, local in enumerate(table.sentence):
            chosen = position == self.position
            piece = table.pieces[local]
            line: Line = [
                ("▶" if chosen else " ", "bold"),
                (
                    piece + " " * (piece_width - cell_len(piece)) + " ",
                    "reverse bold" if chosen else "bold",
                ),
            ]
            for column in columns:
                if column is None:
                    line.append(("… ", "dim"))
                elif column == local:
                    line.append(("1 ", "bold reverse" if chosen else "bold"))
                else:
                    line.append(("0 ", "dim"))
            x_block.append(line)
            xe_block.append(values(products[position], "reverse bold" if chosen else ""))
        label_width = len(str(vocab - 1)) + 1 + piece_width
        e_block: list[Line] = [[(f"E [{vocab} × {dim}]", "bold")]]
        for local, piece in enumerate(table.pieces):
            label = f"{local:>{len(str(vocab - 1))}} {piece}"
            style = "reverse bold" if local == picked else ""
            e_block.append(
                [
                    (label + " " * (label_width - cell_len(label)) + " ", style),
                    *values(table.weights[local], style),
                ]
            )
        side = beside(
            [x_block, operator(" × ", tokens), e_block, operator(" = ", tokens), xe_block]
        )
        if max(width_of(line) for line in side) <= width:
            lines = side
        else:  # E first, then each token's one-hot row and the row it comes out as
            lines = [*e_block, *beside([x_block, operator(" × E = ", tokens), xe_block])]
        equal = np.array_equal(products, table.weights[table.sentence])
        notes: list[Line] = [
            [(ctx.t("lookup.picked", piece=table.pieces[picked], row=picked), "bold")],
            [(ctx.t("lookup.rows_equal") if equal else "≠", "bold $text-success")],
            [(ctx.t("lookup.small_vocab", d=dim), "dim italic")],
        ]
        return lines, notes

    def _real_lines(self) -> tuple[list[Line], list[Line]]:
        """One token's one-hot row (1 × V) times E (V × d) at real scale, abbreviated with
        ellipses, its edges labelled; then the whole sentence's shapes and cost."""
        ctx = tutor_context(self)
        tokens, vocab, dim = self.real_shape()
        ids, labels = self.real_tokens()
        picked = ids[self.position]
        source = (
            ctx.t("lookup.source.opened", name=ctx.model_dir.name)
            if ctx.model_dir is not None
            else ctx.t("lookup.source.cited")
        )
        lines: list[Line] = [
            [(source, "italic")],
            [
                (
                    ctx.t(
                        "lookup.real.onehot",
                        piece=labels[self.position],
                        v=f"{vocab:,}",
                        id=f"{picked:,}",
                    ),
                    "bold",
                )
            ],
        ]
        # the one-hot row: its column numbers above, 0s and the one 1 below, V under it
        heads, cells, starts = [("  ", "")], [("[ ", "bold")], []
        at = 2
        for column in abbreviated(vocab, {picked - 1, picked, picked + 1, 1}):
            head = "…" if column is None else f"{column:,}"
            value = "…" if column is None else ("1" if column == picked else "0")
            size = max(cell_len(head), 1)
            starts.append(at)
            style = "reverse bold" if column == picked else "dim"
            heads += [(head.rjust(size), "bold" if column == picked else "dim"), ("  ", "")]
            cells += [(value.rjust(size), style), ("  ", "")]
            at += size + 2
        cells[-1] = (" ]", "bold")
        lines += [
            heads,
            cells,
            edge(starts[0], at - 3, ctx.t("lookup.real.v_edge", v=f"{vocab:,}")),
        ]
        # × E: rows 0, the picked one and the last, each d cells drawn as · … ·
        lines.append([(f"× E [{vocab:,} × {dim:,}]", "bold")])
        row_width = len(f"{vocab - 1:,}")
        d_label = ctx.t("lookup.real.d_edge", d=f"{dim:,}")
        dots = max((cell_len(d_label) + 4) // 2, 5)  # the row as wide as its d edge
        for row in abbreviated(vocab, {picked}):
            label = "…" if row is None else f"{row:,}"
            if row is None:
                lines.append([("  " + label.rjust(row_width), "dim")])
                continue
            chosen = row == picked
            mark = "■" if chosen else "·"
            body = " ".join([*[mark] * (dots - 2), "…", mark])
            lines.append(
                [
                    ("  " + label.rjust(row_width) + " ", "bold" if chosen else "dim"),
                    ("│ " + body + " │", "reverse bold" if chosen else "dim"),
                    (" ◀ " + ctx.t("lookup.real.taken") if chosen else "", "bold"),
                ]
            )
        first = 2 + row_width + 1
        lines.append(edge(first, first + cell_len(body) + 3, d_label))
        cost = ctx.t(
            "lookup.cost", cells=f"{tokens * vocab:,}", t=tokens, params=f"{vocab * dim:,}"
        )
        model = ctx.model_dir.name if ctx.model_dir is not None else "Qwen3.8"
        cut = ctx.t(
            "lookup.real.sentence",
            model=model,
            sentence="".join(labels) if ctx.model_dir is None else self.config.sentence,
            t=len(ids),
            pieces=" · ".join(f"{label} {i}" for label, i in zip(labels, ids, strict=True)),
        )
        notes: list[Line] = [
            [(ctx.t("lookup.real.result", d=f"{dim:,}", id=f"{picked:,}"), "bold $text-success")],
            [(cut, "")],
            [(ctx.t("lookup.shapes", t=tokens, v=f"{vocab:,}", d=f"{dim:,}"), "")],
            [(cost, "")],
            [(ctx.t("lookup.real.cells"), "dim italic")],
        ]
        return lines, notes

    def plain_text(self) -> str:
        if self.table is None:
            return self.error
        if self.real_scale:
            drawing, notes = self._real_lines()
            return as_content([*drawing, *notes]).plain
        ctx = tutor_context(self)
        table = self.table
        vocab, dim = table.weights.shape
        tokens = len(table.sentence)
        out = [
            ctx.t("lookup.shapes", t=tokens, v=vocab, d=dim),
            f"E [{vocab} × {dim}]:",
            *(
                f"{local} {piece}: " + " ".join(number(v) for v in table.weights[local])
                for local, piece in enumerate(table.pieces)
            ),
            f"one-hot X [{tokens} × {vocab}] → X × E [{tokens} × {dim}]:",
        ]
        for local, row in zip(table.sentence, self.products(), strict=True):
            ones = " ".join("1" if column == local else "0" for column in range(vocab))
            out.append(f"{table.pieces[local]}: {ones} → " + " ".join(number(v) for v in row))
        picked = table.sentence[self.position]
        out += [
            ctx.t("lookup.picked", piece=table.pieces[picked], row=picked),
            ctx.t("lookup.rows_equal"),
        ]
        return "\n".join(out)
