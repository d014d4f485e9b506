"""The app `tutor review` runs: one screen (tutor.tui.screens.review) over the class's
answers, writing the teacher's marks into the progress store it is given.

A bug ends it without Textual's traceback, as the lesson app does: `tutor review` shows
the apology (tutor.crash) and exits non-zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from tutor.tui import cjk_wrap
from tutor.tui.context import TutorContext
from tutor.tui.crash_path import QuietCrashApp
from tutor.words.i18n import Lang, t

if TYPE_CHECKING:
    from tutor.content.models import Lesson
    from tutor.progress.review import LearnerAnswers
    from tutor.progress.store import ProgressStore


class ReviewApp(QuietCrashApp):
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        lessons: list[Lesson],
        learners: list[LearnerAnswers],
        store: ProgressStore,
        lang: Lang = "zh",
        *,
        animate: bool = True,
    ) -> None:
        cjk_wrap.install()  # learners write mostly Chinese
        super().__init__()
        self.ctx = TutorContext(lang, store)
        self.lessons = lessons
        self.learners = learners
        self.title = t("review.app_title", lang)
        if not animate:
            self.animation_level = "none"

    def get_default_screen(self) -> Screen:
        from tutor.tui.screens.review import ReviewScreen

        return ReviewScreen(self.lessons, self.learners)
