"""one-hot x E = the row: a small table with its numbers, then the same shapes at real scale.

The small table is real: the sentence's tokens (plus a few others) renumbered from 0, each
row the first `small_dim` numbers of that token's row in the project model's trained
table, and the product is a real matrix product computed by the core. The real-scale view
swaps in Qwen3.8's T, V and d from the cited facts (or, under `--model`, the opened model's
own T, V and d, measured on it), where drawing the matrix is hopeless and only the shapes
and their cost still speak.
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

if TYPE_CHECKING:
    import numpy as np

    from tutor.content.widgets import LookupWidget

# Cited facts for the real-scale view (Qwen3.8's vocabulary, width, and IDs of the sentence).
REAL_VOCAB = "qwen38.vocab_size"
REAL_DIM = "qwen38.hidden_size"
REAL_SENTENCE_IDS = "qwen38.sentence_ids"

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
    """The sentence's distinct tokens, then filler tokens, up to `vocab` rows."""
    import numpy as np

    scheme = model.scheme
    sentence_tokens = scheme.encode(sentence)
    model_ids: list[int] = []
    for token in [*sentence_tokens, *scheme.encode(FILLER_TEXT)]:
        if token.id not in model_ids and len(model_ids) < vocab:
            model_ids.append(token.id)
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
        return ctx.t("model.error", error=exc)


def number(value: float) -> str:
    return f"{value:+.2f}"


class LookupDemo(Asking, Vertical):
    """Choose a token of the sentence; see its one-hot row pick its row out of E."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("s", "toggle_scale", "key.scale")]

    DEFAULT_CSS = """
    LookupDemo { height: auto; }
    LookupDemo > Static { height: auto; }
    """

    def __init__(self, config: LookupWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.table: SmallTable | None = None
        self.error = ""
        self.real_scale = False
        self.position = 0  # which token of the sentence is looked up

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        real = "lookup.scale.opened" if ctx.model_dir is not None else "lookup.scale.real"
        yield ChoiceBar(
            ["small", "real"],
            [ctx.t("lookup.scale.small"), ctx.t(real)],
            caption=ctx.t("lookup.title"),
            id="scale",
        )
        yield ChoiceBar(["…"], caption=ctx.t("lookup.pick"), id="token")
        yield Static(ctx.t("model.loading"), id="view")

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
            pieces = [built.pieces[i] for i in built.sentence]
            self.query_one("#token", ChoiceBar).set_options(pieces)
            self.position = 0
        self._show()

    @on(ChoiceBar.Changed, "#token")
    def _token_changed(self, event: ChoiceBar.Changed) -> None:
        self.position = event.index
        self._show()

    @on(ChoiceBar.Changed, "#scale")
    def _scale_changed(self, event: ChoiceBar.Changed) -> None:
        self.real_scale = event.value == "real"
        self._show()

    def action_toggle_scale(self) -> None:
        self.query_one("#scale", ChoiceBar).action_move(1)

    def _show(self) -> None:
        view = self.query_one("#view", Static)
        if self.table is None:
            view.update(Content.styled(self.error, "bold $text-error"))
            return
        view.update(self._real_view() if self.real_scale else self._small_view())

    def _product(self) -> tuple[int, np.ndarray, np.ndarray]:
        """The looked-up local id, its one-hot row, and one-hot x E computed as a product."""
        from tutor.core.table import EmbeddingTable

        assert self.table is not None
        row = self.table.sentence[self.position]
        small = EmbeddingTable(self.table.weights)
        return row, small.one_hot([row])[0], small.one_hot_matmul([row])[0]

    def _small_view(self) -> Content:
        """The one-hot row, E with the picked row reversed, the product, and the check."""
        import numpy as np  # loaded already: the worker built the table with it

        ctx = tutor_context(self)
        assert self.table is not None
        row, one_hot, product = self._product()
        vocab, dim = self.table.weights.shape
        product_line = "= one-hot × E"
        labels = [f" {n} {piece}" for n, piece in enumerate(self.table.pieces)]
        width = max(cell_len(text) for text in [*labels, product_line]) + 2
        parts: list[str | tuple[str, str]] = [
            (ctx.t("lookup.onehot", v=vocab) + "\n", "bold"),
            "  " + " ".join(f"{v:.0f}" for v in one_hot) + "\n",
            (ctx.t("lookup.table", v=vocab, d=dim, row=row) + "\n", "bold"),
        ]
        for local_id, piece in enumerate(self.table.pieces):
            picked = local_id == row
            label = f"{'▶' if picked else ' '}{local_id} {piece}"
            values = " ".join(number(v) for v in self.table.weights[local_id])
            line = label + " " * (width - cell_len(label)) + values
            parts += [(line, "reverse bold" if picked else ""), "\n"]
        product_line = "= one-hot × E"
        values = " ".join(number(v) for v in product)
        parts += [
            (product_line + " " * (width - cell_len(product_line)) + values, "bold"),
            "\n",
        ]
        equal = np.array_equal(product, self.table.weights[row])
        parts.append((ctx.t("lookup.equal", row=row) if equal else "≠", "bold $text-success"))
        parts.append("\n" + ctx.t("lookup.shapes", t=len(self.table.sentence), v=vocab, d=dim))
        parts.append(("\n" + ctx.t("lookup.small_vocab", d=dim), "dim italic"))
        return Content.assemble(*parts)

    def _real_view(self) -> str:
        """Qwen3.8's shapes from the cited facts; under --model, the opened model's own."""
        ctx = tutor_context(self)
        if ctx.model_dir is not None and self.table is not None:
            tokens, vocab, dim = self.table.model_shape
            source = ctx.t("lookup.source.opened", name=ctx.model_dir.name)
        else:
            facts = ctx.facts
            vocab = int(facts[REAL_VOCAB].value)
            dim = int(facts[REAL_DIM].value)
            tokens = len(facts[REAL_SENTENCE_IDS].value)
            source = ctx.t("lookup.source.cited")
        return "\n".join(
            [
                source,
                ctx.t("lookup.shapes", t=tokens, v=f"{vocab:,}", d=f"{dim:,}"),
                ctx.t("lookup.dims", t=tokens, v=f"{vocab:,}", d=f"{dim:,}"),
                ctx.t(
                    "lookup.cost",
                    cells=f"{tokens * vocab:,}",
                    t=tokens,
                    params=f"{vocab * dim:,}",
                ),
            ]
        )

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        if self.table is None:
            return self.error
        if self.real_scale:
            return self._real_view()
        row, one_hot, product = self._product()
        vocab, dim = self.table.weights.shape
        lines = [
            ctx.t("lookup.onehot", v=vocab) + ": " + " ".join(f"{v:.0f}" for v in one_hot),
            ctx.t("lookup.table", v=vocab, d=dim, row=row),
        ]
        for local_id, piece in enumerate(self.table.pieces):
            mark = " ◀" if local_id == row else ""
            values = " ".join(number(v) for v in self.table.weights[local_id])
            lines.append(f"{local_id} {piece}: {values}{mark}")
        lines.append("one-hot × E = " + " ".join(number(v) for v in product))
        lines.append(ctx.t("lookup.equal", row=row))
        return "\n".join(lines)
