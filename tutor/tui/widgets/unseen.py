"""Why a third of the vocabulary never occurs in the training text, counted by reason.

The lesson states the share (`rows.never_seen_share`, measured by the build); this widget
counts the same never-seen IDs in the shipped tokenizer and training text and sorts them:
pieces a later merge always takes in (with examples: the piece, its partner, the token
they make and how often the text holds it), English pieces, single bytes, the rest. The
counts come with the run-time facts (tutor.core.runfacts: seconds in a child process the
first time, then a small file in the cache dir), so it runs in a worker.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from tutor.tui.context import TutorContext, tutor_context
from tutor.tui.widgets.asking import Asking
from tutor.words.refusals import say_or_model_error

if TYPE_CHECKING:
    from tutor.content.widgets import UnseenWidget
    from tutor.core.merges import UnseenTokens


def count(ctx: TutorContext, examples: int) -> UnseenTokens | str:
    """The never-seen tokens by reason, or why they cannot be counted (in a worker)."""
    from tutor.core.merges import unseen_tokens

    try:
        return unseen_tokens(examples)
    except (ValueError, OSError, subprocess.SubprocessError) as exc:
        return say_or_model_error(ctx, exc)


class UnseenTokensView(Asking, Vertical):
    """A few lines: how many never occur, and each reason with its count."""

    DEFAULT_CSS = """
    UnseenTokensView { height: auto; margin: 1 0; }
    UnseenTokensView > Static { height: auto; }
    """

    def __init__(self, config: UnseenWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.config = config
        self.unseen: UnseenTokens | None = None
        self.error = ""

    def compose(self) -> ComposeResult:
        yield Static(tutor_context(self).t("working"), id="lines")

    def on_mount(self) -> None:
        ctx, examples = tutor_context(self), self.config.examples
        self.call_after_refresh(self.ask, lambda: count(ctx, examples), self._counted)

    def _counted(self, answer: UnseenTokens | str) -> None:
        if isinstance(answer, str):
            self.error = answer
            shown = Content.styled(answer, "bold $text-error")
        else:
            self.unseen = answer
            lines = self.lines()
            shown = Content.assemble((lines[0], "bold"), "\n", "\n".join(lines[1:]))
        self.query_one("#lines", Static).update(shown)

    def lines(self) -> list[str]:
        ctx, unseen = tutor_context(self), self.unseen
        assert unseen is not None
        out = [
            ctx.t("unseen.title", never=f"{unseen.never:,}", vocab=f"{unseen.vocab:,}"),
            ctx.t("unseen.absorbed", count=f"{unseen.absorbed:,}"),
            *(
                ctx.t(
                    "unseen.example",
                    piece=e.piece,
                    pair=ctx.t(
                        "unseen.pair.first" if e.first else "unseen.pair.second",
                        piece=e.piece,
                        id=e.id,
                        partner=e.partner,
                    ),
                    merged=e.merged,
                    merged_id=e.merged_id,
                    count=f"{e.merged_count:,}",
                )
                for e in unseen.examples
            ),
            ctx.t("unseen.english", count=f"{unseen.english:,}"),
            ctx.t("unseen.bytes", count=f"{unseen.bytes:,}"),
        ]
        if unseen.other:
            out.append(ctx.t("unseen.other", count=f"{unseen.other:,}"))
        return out

    def plain_text(self) -> str:
        if self.unseen is None:
            return self.error
        return "\n".join(self.lines())
