"""Text -> pieces and IDs, live as the learner types, under a scheme they switch.

Per key the cost is what decides latency when fifty learners share two cores, so:
- text that the scheme's recent long runs predict to take at most 10 ms is tokenized at
  once, as the field's value changes, and its pieces are drawn in the same
  frame as the typed or pasted characters (a thread hop costs as much, and a frame more);
- longer text (a 100,000-character paste must not freeze typing) or a scheme not loaded
  yet goes to a thread worker (`Asking`: one run at a time, keys that arrive meanwhile
  are answered together by the next run, only the newest answer is shown);
- as many pieces as fit the rows are drawn, then how many more there are (100,000 chips
  would stall the terminal for no insight), and a key that keeps the strip's height
  repaints the strip alone, not the whole page.
"""

from __future__ import annotations

import re
import statistics
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import Asking, still_shown
from tutor.tui.widgets.choice import ChoiceBar
from tutor.tui.widgets.field import example_field, started_choice
from tutor.tui.widgets.flow import Flow
from tutor.tui.widgets.update import update_in_place
from tutor.words.refusals import say

if TYPE_CHECKING:
    from collections.abc import Callable

    from tutor.content.widgets import TokensWidget
    from tutor.core.tokenize import Token
    from tutor.tui.context import TutorContext

SHOWN_TOKENS = 200  # at most this many pieces are laid out, and read out in plain text
INLINE_BUDGET_S = 0.010  # predicted tokenizing time below which the UI thread does it
COST_RUNS = 5  # the prediction is the median cost per character of this many long runs
SHORT_CHARS = 200  # under ~2 ms in every scheme; longer runs measure the cost per character
PIECE_ROWS = 12  # rows of pieces on screen; the last one ends with how many are not shown


# the bytes of a partial character, as tutor.core.tokenize spells them: "<E4 BA>"
HEX_BYTES = re.compile(r"(<[0-9A-F]{2}(?: [0-9A-F]{2})*>)")


def visible_piece(piece: str) -> str:
    """Whitespace made visible, so a space token is not an empty chip; the spaces between
    a partial character's hex bytes are the spelling's, not the text's, and stay."""
    parts = HEX_BYTES.split(piece)
    for text in range(0, len(parts), 2):  # the parts outside the hex runs
        parts[text] = parts[text].replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")
    return "".join(parts) or "∅"


def show_refusal(head: Static, pieces: Static, sentence: str) -> None:
    """Why there are no pieces, in the head line; the pieces' place left empty."""
    update_in_place(head, Content.styled(sentence, "bold $text-error"))
    update_in_place(pieces, "")


def more_tokens(ctx: TutorContext) -> Callable[[int], Content]:
    """The last item of a row of pieces cut short: how many are not shown."""

    def more(hidden: int) -> Content:
        return Content.styled(ctx.t("tokens.more", more=f"{hidden:,}"), "italic")

    return more


@dataclass(frozen=True, slots=True)
class Tokenized:
    text: str
    scheme: str
    vocab_size: int
    tokens: list[Token]


@dataclass(frozen=True, slots=True)
class Answer:
    result: Tokenized | None  # None: refused, `refusal` says why
    refusal: Exception | None
    per_char: float  # seconds per character it took (0.0 when refused: says nothing)


def tokenize(text: str, scheme_name: str) -> Answer:
    """The pieces of text under the scheme, or why it cannot be tokenized."""
    from tutor.core.tokenize import TokenizeError, get_scheme

    start = time.perf_counter()
    try:
        scheme = get_scheme(scheme_name)
        result = Tokenized(text, scheme_name, scheme.vocab_size, scheme.encode(text))
    except TokenizeError as exc:
        return Answer(None, exc, 0.0)
    return Answer(result, None, (time.perf_counter() - start) / max(len(text), 1))


class TokenStrip(Asking, Vertical):
    """Input, scheme switcher, then the pieces with their IDs."""

    DEFAULT_CSS = """
    TokenStrip { height: auto; }
    TokenStrip #pieces { height: auto; max-height: 12; }  /* PIECE_ROWS */
    """

    def __init__(self, config: TokensWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.result: Tokenized | None = None
        self.error = ""
        self._loaded: set[str] = set()  # schemes that have tokenized once
        # seconds per character of the scheme's last long runs: their median predicts the
        # next, so one run slowed by the machine's load does not send the next to a worker
        self._per_char: dict[str, deque[float]] = {}

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield example_field(self, self.config.text, self.config.editable, ctx.t("tokens.input"))
        schemes = self.config.schemes
        index = started_choice(self, "scheme", schemes)
        yield ChoiceBar(schemes, caption=ctx.t("tokens.scheme"), index=index, id="scheme")
        yield Static(id="count")
        yield Static(id="pieces")

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        self.query_one("#count", Static).update(tutor_context(self).t("working"))
        # A watcher runs as the text changes, before the field is redrawn, so a short text's
        # pieces are drawn in the same frame as the typed character (a message comes later).
        self.watch(self.query_one("#text", Input), "value", self._tokenize, init=False)
        self.call_after_refresh(self._tokenize)

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
        if not still_shown(self):  # called after a refresh that came after the page left
            return
        text, scheme = self.text, self.scheme
        self.ask(lambda: tokenize(text, scheme), self._answer, now=self._cheap(text, scheme))

    def _cheap(self, text: str, scheme: str) -> bool:
        """Short text, or long text the scheme's last long runs say fits the budget."""
        if scheme not in self._loaded:
            return False  # loading the tokenizer file itself takes a worker's while
        if len(text) <= SHORT_CHARS:
            return True
        costs = self._per_char.get(scheme)
        return bool(costs) and len(text) * statistics.median(costs) <= INLINE_BUDGET_S

    def _learn(self, result: Tokenized | None, per_char: float) -> None:
        if result is None:  # a refusal says nothing about what tokenizing costs
            return
        self._loaded.add(result.scheme)
        if len(result.text) > SHORT_CHARS:  # in shorter runs the fixed cost would dominate
            costs = self._per_char.setdefault(result.scheme, deque(maxlen=COST_RUNS))
            costs.append(per_char)

    def _answer(self, answer: Answer) -> None:
        self._learn(answer.result, answer.per_char)
        refusal = answer.refusal
        self.result = answer.result
        self.error = "" if refusal is None else say(tutor_context(self), refusal)
        self._show()

    def _show(self) -> None:
        ctx = tutor_context(self)
        count = self.query_one("#count", Static)
        pieces = self.query_one("#pieces", Static)
        if self.result is None:
            show_refusal(count, pieces, ctx.t("tokens.error", error=self.error))
            return
        result = self.result
        update_in_place(count, self._count_text(result))
        if not result.tokens:
            update_in_place(pieces, Content.styled(ctx.t("tokens.empty"), "dim"))
            return
        items = [
            Content.assemble(
                (visible_piece(token.piece), "reverse" if number % 2 == 0 else "bold underline"),
                (f" {token.id}", "dim"),
            )
            for number, token in enumerate(result.tokens[:SHOWN_TOKENS])
        ]
        # a token and its ID never split over two lines
        left_out = len(result.tokens) - len(items)
        flow = Flow(items, max_rows=PIECE_ROWS, more=more_tokens(ctx), left_out=left_out)
        update_in_place(pieces, flow)

    def _count_text(self, result: Tokenized) -> str:
        return tutor_context(self).t(
            "tokens.count",
            chars=f"{len(result.text):,}",
            count=f"{len(result.tokens):,}",
            vocab=f"{result.vocab_size:,}",
        )

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        if self.result is None:
            return ctx.t("tokens.error", error=self.error)
        result = self.result
        head = self._count_text(result)
        body = " ".join(f"{visible_piece(t.piece)}({t.id})" for t in result.tokens[:SHOWN_TOKENS])
        return f"{result.scheme}: {head}\n{body}"
