"""Which row each token fetches, sentence by sentence.

Two facts hold from here on and both are visible here: one token always fetches the same
row whatever its context (苹果 in 吃苹果 and in 苹果手机), and a reordered sentence fetches
the same set of rows (小明打了小王 / 小王打了小明), so lookup alone cannot see order.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.token_strip import visible_piece

if TYPE_CHECKING:
    from tutor.content.widgets import RowsWidget
    from tutor.core.tokenize import Token


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


class RowsDemo(Vertical):
    DEFAULT_CSS = """
    RowsDemo { height: auto; }
    RowsDemo > Static { height: auto; }
    """

    class Encoded(Message):
        def __init__(
            self, sentences: list[str], rows: list[list[Token]], error: str, request: int
        ) -> None:
            super().__init__()
            self.request = request
            self.sentences = sentences
            self.rows = rows
            self.error = error

    def __init__(self, config: RowsWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.sentences = list(config.sentences)
        self.rows: list[list[Token]] = []
        self.error = ""
        self._request = 0
        self._shown: int | None = None  # the request whose answer is on screen

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield Static(Content.styled(ctx.t("rows.title"), "bold"))
        yield Static(ctx.t("working"), id="table")
        yield Input(placeholder=ctx.t("rows.try"), id="own")

    def on_mount(self) -> None:
        self.call_after_refresh(self._ask)

    def _ask(self) -> None:
        self._request += 1
        self._encode(list(self.sentences), self._request)

    @property
    def loading(self) -> bool:
        return self._shown != self._request

    @on(Input.Submitted, "#own")
    def _add(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.sentences.append(text)
            event.input.clear()
            self._ask()

    @work(thread=True, exclusive=True, group="rows")
    def _encode(self, sentences: list[str], request: int) -> None:
        from tutor.core.tokenize import PROJECT, get_scheme

        ctx = tutor_context(self)
        try:
            scheme = get_scheme(PROJECT, ctx.model_dir)
            rows = [scheme.encode(sentence) for sentence in sentences]
        except (ValueError, OSError) as exc:
            self.post_message(self.Encoded(sentences, [], str(exc), request))
            return
        self.post_message(self.Encoded(sentences, rows, "", request))

    def on_rows_demo_encoded(self, message: Encoded) -> None:
        message.stop()
        if message.request != self._request:
            return
        self._shown = message.request
        self.sentences, self.rows, self.error = message.sentences, message.rows, message.error
        self.query_one("#table", Static).update(self._view())

    def findings(self) -> list[str]:
        """The two invariants, stated for these sentences."""
        ctx = tutor_context(self)
        lines = []
        token = self.config.token
        if token is not None:
            rows = {t.id for sentence in self.rows for t in sentence if t.piece == token}
            if len(rows) == 1:
                lines.append(ctx.t("rows.same_row", token=token, row=rows.pop()))
        for a, b in same_rows_pairs(self.sentences, self.rows):
            lines.append(ctx.t("rows.same_set", a=a, b=b))
        return lines

    def _view(self) -> Content:
        if self.error:
            return Content.styled(self.error, "bold $text-error")
        parts: list[str | tuple[str, str]] = []
        for sentence, tokens in zip(self.sentences, self.rows, strict=True):
            parts.append((f"{sentence}\n", "bold"))
            parts.append("  ")
            for token in tokens:
                marked = token.piece == self.config.token
                parts += [
                    (visible_piece(token.piece), "reverse bold" if marked else "underline"),
                    ("→", "dim"),
                    (str(token.id), "bold" if marked else ""),
                    "  ",
                ]
            parts.append("\n")
        for line in self.findings():
            parts.append((f"✓ {line}\n", "bold $text-success"))
        return Content.assemble(*parts)

    def plain_text(self) -> str:
        lines = [
            f"{sentence}: " + " ".join(f"{visible_piece(t.piece)}→{t.id}" for t in tokens)
            for sentence, tokens in zip(self.sentences, self.rows, strict=True)
        ]
        return "\n".join([*lines, *self.findings()])
