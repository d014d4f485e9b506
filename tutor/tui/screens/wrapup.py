"""The wrap-up: the takeaway, the next gap, and the summary form if the page holds it."""

from __future__ import annotations

from textual.app import ComposeResult

from tutor.content.models import WrapupFront
from tutor.tui.screens.page import PageScreen


class WrapupScreen(PageScreen):
    KIND = "wrapup"

    def compose_after_body(self) -> ComposeResult:
        front = self.page.front
        assert isinstance(front, WrapupFront)
        if front.summary is not None:
            yield from self.compose_summary(front.summary)
