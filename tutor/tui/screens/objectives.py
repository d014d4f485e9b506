"""The lesson's first page: its question, objectives, prerequisites and warning."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.content.models import BodyBlock, MarkdownBlock
from tutor.tui.context import tutor_context
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.lesson_card import LessonCardView


class ObjectivesScreen(PageScreen):
    KIND = "objectives"

    @property
    def opens_lesson(self) -> bool:
        return self.page is self.lesson.pages[0]

    @property
    def shows_title(self) -> bool:
        """The lesson card's first line is the lesson's question, which is this title."""
        return not self.opens_lesson

    def compose_before_body(self) -> ComposeResult:
        """The card opens the lesson; later objectives pages go straight to their text."""
        if self.opens_lesson:
            titles = tutor_context(self).lesson_titles()
            yield LessonCardView(self.lesson.card, titles)

    def body_blocks(self) -> list[BodyBlock]:
        """Under the card, a heading that only repeats the lesson's question is left out:
        the card's first line already asks it."""
        blocks = super().body_blocks()
        if not self.opens_lesson or not blocks or not isinstance(blocks[0], MarkdownBlock):
            return blocks
        first, _, rest = blocks[0].text.lstrip().partition("\n")
        if first.lstrip("#").strip() != self.lesson.card.question.strip() or first[:1] != "#":
            return blocks
        return [blocks[0].model_copy(update={"text": rest.lstrip("\n")}), *blocks[1:]]
