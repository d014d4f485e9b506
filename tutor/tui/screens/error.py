"""What stops the tutor before the lessons: broken content (the problems as `tutor check`
prints them, wrapped to the screen) or a progress database that cannot be opened; never a
traceback. `tutor` exits non-zero after showing broken content."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tutor.content.problems import Problem
from tutor.tui.widgets.body import Body
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.problem import ProblemReport
from tutor.words.i18n import Lang, Speaker
from tutor.words.problems import render_said


class ErrorScreen(Screen[None]):
    """`reports` are content problems (`path:line:col: message` plus the marked line), or
    one line saying why the progress database cannot be opened; both in `lang`."""

    help_key = "help.error"

    def __init__(
        self, reports: Sequence[Problem | str], title: str, hint: str, lang: Lang = "zh"
    ) -> None:
        super().__init__()
        self.reports = list(reports)
        self.title = title
        self.hint = hint
        self.speaker = Speaker(lang)

    def help_title(self) -> str:
        return self.title

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(self.help_title(), "bold $text-error"), id="page-header")
        with Body(id="body"):
            for report in self.reports:
                if isinstance(report, Problem):
                    yield ProblemReport(report, self.speaker)
                else:
                    yield Static(Content(report), classes="problem")
            yield Static(Content.styled(self.hint, "italic"), classes="hint")
        yield KeyBar()

    async def show(self, reports: Sequence[Problem | str], title: str) -> None:
        """Other problems in place of these (tutor preview, after another broken save)."""
        self.reports = list(reports)
        self.title = title
        await self.recompose()
        self.query_one("#body").focus()

    def on_mount(self) -> None:
        self.query_one("#body").focus()  # arrows scroll the list

    def plain_text(self) -> str:
        return "\n".join(
            render_said(self.speaker, report) if isinstance(report, Problem) else report
            for report in self.reports
        )
