"""Which row each token fetches, sentence by sentence.

Two facts hold from here on and both are visible here: one token always fetches the same
row whatever its context (苹果 in 吃苹果 and in 苹果手机), and a reordered sentence fetches
the same set of rows (小明打了小王 / 小王打了小明), so lookup alone cannot see order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking
from tutor.tui.widgets.field import started_text
from tutor.tui.widgets.flow import Flow
from tutor.tui.widgets.numbers import number
from tutor.tui.widgets.token_strip import visible_piece
from tutor.words.refusals import quote, say_or_model_error

if TYPE_CHECKING:
    from tutor.content.widgets import RowsWidget
    from tutor.core.tokenize import Token


ROW_LINES = 3  # lines of tokens per sentence; the last ends with how many are not shown
ROW_HEAD = 6  # numbers of the named token's row shown: enough to see a row is numbers
SHOWN_TOKENS = 400  # tokens laid out per sentence at most: more never fit ROW_LINES lines


def token_label(token: Token) -> str:
    """A token and the row it fetches, as one unbreakable item: 苹果→534."""
    return f"{visible_piece(token.piece)}→{token.id}"


def same_rows_pairs(sentences: list[str], rows: list[list[Token]]) -> list[tuple[str, str]]:
    """Pairs of different sentences that fetch the same multiset of rows."""
    pairs = []
    for i in range(len(sentences)):
        for j in range(i + 1, len(sentences)):
            ids_i = Counter(t.id for t in rows[i])
            ids_j = Counter(t.id for t in rows[j])
            if sentences[i] != sentences[j] and ids_i == ids_j:
                pairs.append((sentences[i], sentences[j]))
    return pairs


@dataclass(frozen=True, slots=True)
class Encoded:
    sentences: list[str]
    rows: list[list[Token]]
    error: str = ""
    # the named token's rows in the trained table: row -> its first ROW_HEAD numbers
    heads: dict[int, list[float]] = field(default_factory=dict)
    width: int = 0  # d, the numbers in each row


def encode(ctx: TutorContext, sentences: list[str], token: str | None) -> Encoded:
    """Each sentence's tokens under the project model's tokenizer, and the start of the
    trained row the named `token` fetches, so the row is seen, not only its number (in a
    worker)."""
    from tutor.core.tokenize import PROJECT, get_scheme

    try:
        scheme = get_scheme(PROJECT, ctx.model_dir)
        rows = [scheme.encode(sentence) for sentence in sentences]
        named = sorted({t.id for tokens in rows for t in tokens if t.piece == token})
        if not named:
            return Encoded(sentences, rows)
        table = ctx.models.get().table("after").lookup(named)
        heads = {row: [float(v) for v in table[n, :ROW_HEAD]] for n, row in enumerate(named)}
        return Encoded(sentences, rows, heads=heads, width=int(table.shape[1]))
    except (ValueError, OSError) as exc:
        return Encoded(sentences, [], say_or_model_error(ctx, exc))


class RowsDemo(Asking, Vertical):
    DEFAULT_CSS = """
    RowsDemo { height: auto; }
    RowsDemo > Static, RowsDemo #table > Static { height: auto; }
    RowsDemo #table { height: auto; }
    RowsDemo .tokens { padding-left: 2; }
    """

    def __init__(self, config: RowsWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.asked = list(config.sentences)  # the sentences, with any the learner added
        self.sentences: list[str] = []  # the sentences whose rows are on screen
        self.rows: list[list[Token]] = []
        self.heads: dict[int, list[float]] = {}  # the named token's rows, their first numbers
        self.width = 0  # how many numbers a row holds
        self.error = ""
        self.flows: list[Flow] = []  # each sentence's tokens as laid out on screen

    def compose(self) -> ComposeResult:
        ctx, given = tutor_context(self), len(self.config.sentences)
        added = started_text(self, "added", "", read=lambda: "\n".join(self.asked[given:]))
        self.asked += [sentence for sentence in added.split("\n") if sentence]
        yield Static(Content.styled(ctx.t("rows.title"), "bold"))
        yield Static(ctx.t("working"), id="status")
        yield Vertical(id="table")
        yield Static(id="findings")
        yield Input(started_text(self, "own"), placeholder=ctx.t("rows.try"), id="own")

    def on_mount(self) -> None:
        self.call_after_refresh(self._ask)

    def _ask(self) -> None:
        sentences, ctx, token = list(self.asked), tutor_context(self), self.config.token
        self.ask(lambda: encode(ctx, sentences, token), self._encoded)

    @on(Input.Submitted, "#own")
    def _add(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.asked.append(text)
            event.input.clear()
            self._ask()

    def _encoded(self, encoded: Encoded) -> None:
        self.sentences, self.rows, self.error = encoded.sentences, encoded.rows, encoded.error
        self.heads, self.width = encoded.heads, encoded.width
        ctx = tutor_context(self)
        status = self.query_one("#status", Static)
        status.update(Content.styled(self.error, "bold $text-error") if self.error else "")
        status.display = bool(self.error)
        self.flows = [self._flow(tokens) for tokens in self.rows]
        table = self.query_one("#table", Vertical)
        table.remove_children()
        table.mount_all(
            widget
            for sentence, flow in zip(self.sentences, self.flows, strict=True)
            for widget in (
                Static(Content.styled(quote(ctx, sentence), "bold"), classes="sentence"),
                Static(flow, classes="tokens"),
            )
        )
        self.query_one("#findings", Static).update(self._findings_view())

    def _flow(self, tokens: list[Token]) -> Flow:
        """A sentence's tokens, each with its row, wrapped between tokens and never inside
        one; what does not fit ROW_LINES lines is counted at the end."""
        ctx = tutor_context(self)
        items = [
            Content.assemble(
                (visible_piece(token.piece), "reverse bold" if marked else "underline"),
                ("→", "dim"),
                (str(token.id), "bold" if marked else ""),
            )
            for token in tokens[:SHOWN_TOKENS]
            for marked in [token.piece == self.config.token]
        ]

        def more(hidden: int) -> Content:
            return Content.styled(ctx.t("tokens.more", more=f"{hidden:,}"), "italic")

        return Flow(items, max_rows=ROW_LINES, more=more, left_out=len(tokens) - len(items))

    def findings(self) -> list[tuple[str, bool]]:
        """The two invariants, stated only as far as the sentences on screen show them;
        each line with whether it confirms one (a sentence without the token does not)."""
        ctx = tutor_context(self)
        lines = []
        token = self.config.token
        if token is not None:
            having = [
                (sentence, [t.id for t in tokens if t.piece == token])
                for sentence, tokens in zip(self.sentences, self.rows, strict=True)
            ]
            rows = {row for _sentence, ids in having for row in ids}
            with_token = sum(1 for _sentence, ids in having if ids)
            if len(rows) == 1 and with_token == len(having):
                lines.append((ctx.t("rows.same_row", token=token, row=min(rows)), True))
            elif len(rows) == 1:
                same = ctx.t("rows.same_row_in", token=token, count=with_token, row=min(rows))
                lines.append((same, True))
            lines += [
                (
                    ctx.t(
                        "rows.head",
                        row=row,
                        numbers="  ".join(number(v) for v in self.heads[row]),
                        d=f"{self.width:,}",
                    ),
                    False,
                )
                for row in sorted(rows)
                if row in self.heads
            ]
            lines += [
                (ctx.t("rows.absent", sentence=quote(ctx, sentence), token=token), False)
                for sentence, ids in having
                if not ids
            ]
        for a, b in same_rows_pairs(self.sentences, self.rows):
            lines.append((ctx.t("rows.same_set", a=quote(ctx, a), b=quote(ctx, b)), True))
        return lines

    def _findings_view(self) -> Content:
        parts: list[str | tuple[str, str]] = []
        for line, confirms in self.findings():
            parts.append((f"✓ {line}\n", "bold $text-success") if confirms else f"· {line}\n")
        return Content.assemble(*parts).rstrip()

    def plain_text(self) -> str:
        lines = [
            f"{sentence}: " + " ".join(token_label(t) for t in tokens)
            for sentence, tokens in zip(self.sentences, self.rows, strict=True)
        ]
        return "\n".join([*lines, *(line for line, _confirms in self.findings())])
