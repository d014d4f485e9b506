"""The wrap-up: the takeaway, the next gap, and the summary form if the page holds it."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.content.models import WrapupFront
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.summary import SummaryEditor


class WrapupScreen(PageScreen):
    KIND = "wrapup"

    def compose_after_body(self) -> ComposeResult:
        front = self.page.front
        assert isinstance(front, WrapupFront)
        if front.summary is not None:
            saved = self.saved_summary(self.lesson.id)
            yield SummaryEditor(front.summary, self.lesson.id, saved, id="summary")
