"""Text -> pieces and IDs, live as the learner types, under a scheme they switch.

Tokenizing runs in a thread worker (a 100,000-character paste must not freeze typing);
only the newest request's answer is shown. Long results show their first pieces and a
count, because drawing 100,000 chips would stall the terminal for no insight.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from tutor.content.widgets import TokensWidget
from tutor.core.tokenize import Token
from tutor.tui.context import tutor_context
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.flow import Flow

SHOWN_TOKENS = 200


def visible_piece(piece: str) -> str:
    """Whitespace made visible, so a space token is not an empty chip."""
    return piece.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥") or "∅"


@dataclass(frozen=True, slots=True)
class Tokenized:
    text: str
    scheme: str
    vocab_size: int
    tokens: list[Token]


class TokenStrip(Vertical):
    """Input, scheme switcher, then the pieces with their IDs."""

    DEFAULT_CSS = """
    TokenStrip { height: auto; }
    TokenStrip #pieces { height: auto; max-height: 12; }
    """

    class Result(Message):
        def __init__(self, result: Tokenized | None, error: str, request: int) -> None:
            super().__init__()
            self.result = result
            self.error = error
            self.request = request

    def __init__(self, config: TokensWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.result: Tokenized | None = None
        self.error = ""
        self._request = 0
        self._shown: int | None = None  # the request whose answer is on screen

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield Input(
            value=self.config.text,
            placeholder=ctx.t("tokens.input"),
            disabled=not self.config.editable,
            id="text",
        )
        yield ChoiceBar(self.config.schemes, caption=ctx.t("tokens.scheme"), id="scheme")
        yield Static(id="count")
        yield Static(id="pieces")

    def on_mount(self) -> None:
        self.query_one("#count", Static).update(tutor_context(self).t("working"))
        self.call_after_refresh(self._tokenize)

    @on(Input.Changed, "#text")
    @on(ChoiceBar.Changed, "#scheme")
    def _inputs_changed(self) -> None:
        self._tokenize()

    @property
    def text(self) -> str:
        return self.query_one("#text", Input).value

    @property
    def scheme(self) -> str:
        return self.query_one("#scheme", ChoiceBar).value

    def _tokenize(self) -> None:
        self._request += 1
        self._encode(self.text, self.scheme, self._request)

    @work(thread=True, exclusive=True, group="tokenize")
    def _encode(self, text: str, scheme_name: str, request: int) -> None:
        from tutor.core.tokenize import TokenizeError, get_scheme

        try:
            scheme = get_scheme(scheme_name)
            result = Tokenized(text, scheme_name, scheme.vocab_size, scheme.encode(text))
        except TokenizeError as exc:
            self.post_message(self.Result(None, str(exc), request))
            return
        self.post_message(self.Result(result, "", request))

    def on_token_strip_result(self, message: Result) -> None:
        message.stop()
        if message.request != self._request:
            return
        self.result, self.error = message.result, message.error
        self._shown = message.request
        self._show()

    @property
    def loading(self) -> bool:
        """An answer is still being computed for what the learner last typed or chose."""
        return self._shown != self._request

    def _show(self) -> None:
        ctx = tutor_context(self)
        count = self.query_one("#count", Static)
        pieces = self.query_one("#pieces", Static)
        if self.result is None:
            count.update(
                Content.styled(ctx.t("tokens.error", error=self.error), "bold $text-error")
            )
            pieces.update("")
            return
        result = self.result
        count.update(
            ctx.t(
                "tokens.count",
                chars=f"{len(result.text):,}",
                count=f"{len(result.tokens):,}",
                vocab=f"{result.vocab_size:,}",
            )
        )
        if not result.tokens:
            pieces.update(Content.styled(ctx.t("tokens.empty"), "dim"))
            return
        items = [
            Content.assemble(
                (visible_piece(token.piece), "reverse" if number % 2 == 0 else "bold underline"),
                (f" {token.id}", "dim"),
            )
            for number, token in enumerate(result.tokens[:SHOWN_TOKENS])
        ]
        more = len(result.tokens) - SHOWN_TOKENS
        if more > 0:
            items.append(Content.styled(ctx.t("tokens.more", more=f"{more:,}"), "italic"))
        pieces.update(Flow(items))  # a token and its ID never split over two lines

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        if self.result is None:
            return ctx.t("tokens.error", error=self.error)
        result = self.result
        head = ctx.t(
            "tokens.count",
            chars=f"{len(result.text):,}",
            count=f"{len(result.tokens):,}",
            vocab=f"{result.vocab_size:,}",
        )
        body = " ".join(f"{visible_piece(t.piece)}({t.id})" for t in result.tokens[:SHOWN_TOKENS])
        return f"{result.scheme}: {head}\n{body}"
