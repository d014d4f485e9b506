"""Broken content: the problems as `tutor check` prints them, never a traceback."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tutor.tui.context import tutor_context
from tutor.tui.widgets.keybar import KeyBar


class ErrorScreen(Screen[None]):
    """`reports` are rendered problems (`path:line:col: message` plus the marked line)."""

    help_key = "help.error"

    def __init__(self, reports: Sequence[str], hint: str) -> None:
        super().__init__()
        self.reports = list(reports)
        self.hint = hint

    def help_title(self) -> str:
        return tutor_context(self).t("error.title", count=len(self.reports))

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(self.help_title(), "bold $text-error"), id="page-header")
        with VerticalScroll(id="body"):
            for report in self.reports:
                yield Static(Content(report), classes="problem")
            yield Static(Content.styled(self.hint, "italic"), classes="hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#body").focus()  # arrows scroll the list, sideways too

    def plain_text(self) -> str:
        return "\n".join(self.reports)
