"""TutorApp: lessons as screens, one Screen class per page kind, progress saved as it happens.

The app owns what screens share (lessons, the context with the store and the model) and
navigation; screens own their page; widgets own their interaction and call the core in
thread workers. Broken content never reaches a page: it stops at the error screen.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from tutor.content.models import Lesson, LessonSet, RubricClaim
from tutor.content.problems import Problem, render_problem
from tutor.tui import cjk_wrap
from tutor.tui.context import TutorContext
from tutor.tui.i18n import Lang, t
from tutor.tui.palette import LessonPages
from tutor.tui.screens.error import ErrorScreen
from tutor.tui.screens.failure import FailureScreen
from tutor.tui.screens.fix import FixScreen
from tutor.tui.screens.help import HelpScreen
from tutor.tui.screens.home import HomeScreen
from tutor.tui.screens.naive import NaiveScreen
from tutor.tui.screens.objectives import ObjectivesScreen
from tutor.tui.screens.page import PageScreen
from tutor.tui.screens.quiz import QuizScreen
from tutor.tui.screens.wrapup import WrapupScreen
from tutor.tui.store import ProgressStore, StoreError

SCREEN_FOR_KIND: dict[str, type[PageScreen]] = {
    "objectives": ObjectivesScreen,
    "naive": NaiveScreen,
    "failure": FailureScreen,
    "fix": FixScreen,
    "quiz": QuizScreen,
    "wrapup": WrapupScreen,
}

THEMES = ("textual-dark", "textual-light")


@dataclass(frozen=True, slots=True)
class LessonState:
    seen: int
    total: int
    locked_by: list[str]  # titles of prerequisite lessons not yet done

    @property
    def done(self) -> bool:
        return self.total > 0 and self.seen >= self.total


class TutorApp(App[None]):
    CSS_PATH = "tutor.tcss"
    COMMANDS = App.COMMANDS | {LessonPages}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "key.help"),
        Binding("q", "quit", "key.quit"),
        Binding("ctrl+p", "command_palette", "key.palette"),
        Binding("t", "toggle_theme", "key.theme", show=False),
    ]

    def __init__(
        self,
        content_root: Path,
        model_dir: Path | None = None,
        lang: Lang = "zh",
        learner: str = "learner",
        data_dir: Path | None = None,
        *,
        guest: bool = False,
        start_lesson: str | None = None,
        start_page: int | None = None,
        animate: bool = True,
        remote: bool = False,
    ) -> None:
        cjk_wrap.install()  # before anything is measured: lesson prose is mostly Chinese
        super().__init__()
        self.content_root = content_root
        self.model_dir = model_dir
        self.lang: Lang = lang
        self.learner = learner
        self.data_dir = data_dir
        self.guest = guest
        self.start_lesson = start_lesson
        self.start_page = start_page
        self.animate = animate
        self.remote = remote  # served over SSH: the progress file's path means nothing here
        self.title = t("app.title", lang)
        self.lesson_set = LessonSet()
        self.ctx: TutorContext

    # start-up ----------------------------------------------------------------

    def on_mount(self) -> None:
        if not self.animate:
            self.animation_level = "none"
        try:
            store = ProgressStore(self.learner, self.data_dir, guest=self.guest)
        except (StoreError, sqlite3.Error, OSError) as exc:
            # The error screen still needs a context; nothing will be written to it.
            self.ctx = TutorContext(self.lang, ProgressStore(self.learner, guest=True))
            self.push_screen(ErrorScreen([t("error.store", self.lang, error=exc)], ""))
            return
        self.ctx = TutorContext(self.lang, store, self.model_dir)
        problems = self._load_lessons()
        if problems:
            hint = t("error.hint", self.lang, path=self.content_root)
            self.push_screen(ErrorScreen([render_problem(p) for p in problems], hint))
            return
        self.push_screen(HomeScreen())
        if self.start_lesson is not None:
            self.open_lesson(self.start_lesson, self.start_page)

    def _load_lessons(self) -> list[Problem]:
        """The content's errors (warnings do not stop the lesson)."""
        from tutor.content import load_lessons

        self.lesson_set = load_lessons(self.content_root)
        return self.lesson_set.errors

    def on_unmount(self) -> None:
        if hasattr(self, "ctx"):
            self.ctx.store.close()

    # lessons -----------------------------------------------------------------

    @property
    def lessons(self) -> list[Lesson]:
        return self.lesson_set.lessons

    def lesson_titles(self) -> dict[str, str]:
        return {lesson.id: lesson.card.title for lesson in self.lessons}

    def lesson_state(self, lesson: Lesson) -> LessonState:
        numbers = {page.number for page in lesson.pages}
        seen = len(self.ctx.store.visited_pages(lesson.id) & numbers)
        locked_by = []
        for prerequisite in lesson.card.prerequisites:
            needed = self.lesson_set.lesson(prerequisite.lesson or "")
            if needed is not None and not self.lesson_state(needed).done:
                locked_by.append(needed.card.title)
        return LessonState(seen, len(numbers), locked_by)

    def rubric_claims(self, lesson: Lesson) -> dict[str, RubricClaim]:
        """Every rubric claim of the lesson's summary forms, for text questions to cite."""
        claims: dict[str, RubricClaim] = {}
        for page in lesson.pages:
            summary = getattr(page.front, "summary", None)
            if summary is not None:
                claims.update({claim.id: claim for claim in summary.rubric})
        return claims

    # navigation --------------------------------------------------------------

    def open_lesson(self, lesson_id: str, page: int | None = None) -> None:
        """Open a lesson at `page`, else where the learner left it, else its first page."""
        lesson = self.lesson_set.lesson(lesson_id)
        if lesson is None:
            known = ", ".join(lesson.id for lesson in self.lessons)
            self.notify(
                t("lesson.missing", self.lang, lesson=lesson_id, known=known), severity="error"
            )
            return
        state = self.lesson_state(lesson)
        if page is None and state.locked_by:
            needs = "、".join(state.locked_by)
            self.notify(
                t("home.locked", self.lang, lesson=lesson.card.title, needs=needs),
                severity="warning",
            )
            return
        number = page or self.ctx.store.lesson_page(lesson.id) or lesson.pages[0].number
        self.open_page(lesson.id, number)

    def open_page(self, lesson_id: str, number: int) -> None:
        lesson = self.lesson_set.lesson(lesson_id)
        if lesson is None:
            return self.open_lesson(lesson_id)
        page = next((p for p in lesson.pages if p.number == number), None)
        if page is None:
            message = t(
                "page.missing", self.lang, lesson=lesson_id, page=number, total=len(lesson.pages)
            )
            self.notify(message, severity="error")
            return None
        screen = SCREEN_FOR_KIND[page.kind](lesson, page)
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if isinstance(self.screen, PageScreen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        return None

    def resume(self) -> None:
        position = self.ctx.store.last_position()
        if position is not None and self.lesson_set.lesson(position.lesson) is not None:
            self.open_lesson(position.lesson, position.page)
        elif self.lessons:
            self.open_lesson(self.lessons[0].id)

    # keys --------------------------------------------------------------------

    def settle(self, root: Widget) -> None:
        """Without animation (snapshots, slow links) text cursors stop blinking too."""
        if not self.animate:
            for editor in [*root.query(Input), *root.query(TextArea)]:
                editor.cursor_blink = False

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    def action_help(self) -> None:
        if not isinstance(self.screen, ModalScreen):
            self.push_screen(HelpScreen(self.screen))
