"""The merge stepper: a byte-level BPE's merges replayed on a sentence, one at a time.

Why step by step: the tokenizer does all its merges inside one call, and a learner who
only sees the result cannot see that a token's ID is the order its merge was learnt in.
Here ←/→ apply or undo one merge; the pair that joined and its new ID are named, and the
new tokens stand out among the rest. The walk itself is computed by tutor.core.merges
from the tokenizer's own file, so the last step's IDs are the tokenizer's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Input, Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.asking import Asking, still_shown
from tutor.tui.widgets.field import example_field
from tutor.tui.widgets.flow import Flow
from tutor.tui.widgets.token_strip import more_tokens, show_refusal, visible_piece
from tutor.tui.widgets.update import update_in_place
from tutor.words.refusals import say

if TYPE_CHECKING:
    from tutor.content.widgets import MergesWidget
    from tutor.core.merges import MergeWalk

PIECE_ROWS = 8  # rows of tokens on screen; a 200-character text's bytes end in "…more"


def walk(text: str, scheme: str) -> MergeWalk | Exception:
    """The merges applied to `text`, or the refusal (too long, not Unicode) to show."""
    from tutor.core.merges import merge_walk
    from tutor.core.tokenize import TokenizeError

    try:
        return merge_walk(text, scheme)
    except TokenizeError as refusal:
        return refusal


class MergeStepper(Asking, Vertical, can_focus=True):
    """←/→ apply or undo one merge, home/end show the bytes or the finished tokens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "key.merge", key_display="←→"),
        Binding("right", "step(1)", "key.merge", show=False),
        Binding("home", "jump(0)", "key.merge_ends", key_display="Home/End"),
        Binding("end", "jump(-1)", "key.merge_ends", show=False),
    ]

    DEFAULT_CSS = """
    MergeStepper { height: auto; padding: 0 0 1 0; }
    MergeStepper:focus #merge { text-style: bold; }
    MergeStepper #pieces { height: auto; max-height: 8; }  /* PIECE_ROWS */
    """

    step: reactive[int] = reactive(0, init=False)

    def __init__(self, config: MergesWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.walk: MergeWalk | None = None
        self.error = ""

    def compose(self) -> ComposeResult:
        ctx = tutor_context(self)
        yield example_field(self, self.config.text, self.config.editable, ctx.t("tokens.input"))
        yield Static(ctx.t("working"), id="merge")
        yield Static(id="pieces")
        yield Static(Content.styled(ctx.t("merges.hint"), "dim"), id="hint")

    def on_mount(self) -> None:
        if not still_shown(self):  # its page was taken down before it mounted
            return
        self.watch(self.query_one("#text", Input), "value", self._walk, init=False)
        self._walk()

    def _walk(self) -> None:
        text, scheme = self.query_one("#text", Input).value, self.config.scheme
        self.ask(lambda: walk(text, scheme), self._answer)

    def _answer(self, answer: MergeWalk | Exception) -> None:
        if isinstance(answer, Exception):
            self.walk, self.error = None, say(tutor_context(self), answer)
        else:
            self.walk, self.error = answer, ""
        if self.step == 0:
            self._show()
        self.step = 0  # a new text starts again from its bytes

    def action_step(self, delta: int) -> None:
        if self.walk is not None:
            self.step = max(0, min(len(self.walk.merges), self.step + delta))

    def action_jump(self, end: int) -> None:
        if self.walk is not None:
            self.step = end % (len(self.walk.merges) + 1)

    def watch_step(self) -> None:
        self._show()

    def _merge_text(self) -> str:
        """What the current step did, in words: the pair, the rule's place, the new ID."""
        ctx = tutor_context(self)
        assert self.walk is not None
        if self.step == 0:
            return ctx.t(
                "merges.start",
                tokens=len(self.walk.ids(0)),
                merges=len(self.walk.merges),
                learnt=f"{self.walk.merges_learnt:,}",
            )
        from tutor.core.tokenize import get_scheme

        scheme = get_scheme(self.walk.scheme)
        merge = self.walk.merges[self.step - 1]
        return ctx.t(
            "merges.step",
            step=self.step,
            total=len(self.walk.merges),
            left=visible_piece(scheme.id_to_piece(merge.left)),
            right=visible_piece(scheme.id_to_piece(merge.right)),
            merged=visible_piece(scheme.id_to_piece(merge.merged)),
            rank=merge.rank,
            id=merge.merged,
            offset=merge.merged - merge.rank,
            count=merge.count,
            tokens=len(self.walk.ids(self.step)),
        )

    def _show(self) -> None:
        if not still_shown(self):
            return
        ctx = tutor_context(self)
        merge = self.query_one("#merge", Static)
        pieces = self.query_one("#pieces", Static)
        if self.walk is None:
            show_refusal(merge, pieces, ctx.t("merges.error", error=self.error))
            return
        update_in_place(merge, self._merge_text())
        if self.walk.ids(0):
            update_in_place(pieces, self._pieces())
        else:
            update_in_place(pieces, Content.styled(ctx.t("tokens.empty"), "dim"))

    def _pieces(self) -> Flow:
        """The text's tokens now, each with its ID; those the last merge made in bold."""
        from tutor.core.tokenize import get_scheme

        assert self.walk is not None
        scheme = get_scheme(self.walk.scheme)
        new = self.walk.merges[self.step - 1].merged if self.step else None
        ids = self.walk.ids(self.step)
        items = [
            Content.assemble(
                (
                    visible_piece(scheme.id_to_piece(id)),
                    "bold reverse $text-success" if id == new else "underline",
                ),
                (f" {id}", "bold" if id == new else "dim"),
            )
            for id in ids
        ]
        return Flow(items, max_rows=PIECE_ROWS, more=more_tokens(tutor_context(self)))

    def plain_text(self) -> str:
        ctx = tutor_context(self)
        if self.walk is None:
            return ctx.t("merges.error", error=self.error)
        from tutor.core.tokenize import get_scheme

        scheme = get_scheme(self.walk.scheme)
        pieces = " ".join(
            f"{visible_piece(scheme.id_to_piece(id))}({id})" for id in self.walk.ids(self.step)
        )
        return f"{self._merge_text()}\n{pieces}"
