"""TutorApp: lessons as screens, one Screen class per page kind, progress saved as it happens.

The app owns what screens share (lessons, the context with the store and the model) and
navigation; screens own their page; widgets own their interaction and call the core in
thread workers. Broken content never reaches a page: it stops at the error screen.
"""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen

from tutor.content.cache import LessonContent, default_cache_dir
from tutor.content.index import ContentIndex, LessonEntry
from tutor.content.problems import Problem, render_problem
from tutor.lazy import load
from tutor.progress.store import ProgressStore, StoreError, open_in_background, open_store
from tutor.tui import cjk_wrap
from tutor.tui.context import TutorContext
from tutor.tui.i18n import Lang, t
from tutor.tui.palette import LessonPages

if TYPE_CHECKING:
    from concurrent.futures import Future

    from tutor.content.models import Lesson, RubricClaim
    from tutor.tui.screens.page import PageScreen

# One Screen class per page kind, imported when a page of that kind first opens: the home
# screen (the first one a learner sees) needs none of them, nor the widgets they hold.
SCREEN_FOR_KIND: dict[str, str] = {
    "objectives": "tutor.tui.screens.objectives:ObjectivesScreen",
    "naive": "tutor.tui.screens.naive:NaiveScreen",
    "failure": "tutor.tui.screens.failure:FailureScreen",
    "fix": "tutor.tui.screens.fix:FixScreen",
    "quiz": "tutor.tui.screens.quiz:QuizScreen",
    "wrapup": "tutor.tui.screens.wrapup:WrapupScreen",
}


def screen_class(kind: str) -> type[PageScreen]:
    """The Screen class that shows pages of `kind`."""
    screen: type[PageScreen] = load(SCREEN_FOR_KIND[kind])
    return screen


THEMES = ("textual-dark", "textual-light")
FREEZE_AFTER_S = 1.0  # after start, when Textual's long-lived objects are frozen


class LessonState(NamedTuple):
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
        opening_store: Future[ProgressStore] | None = None,
    ) -> None:
        cjk_wrap.install()  # before anything is measured: lesson prose is mostly Chinese
        super().__init__()
        self.content_root = content_root
        self.model_dir = model_dir
        self.lang: Lang = lang
        self.learner = learner
        self.start_lesson = start_lesson
        self.start_page = start_page
        self.animate = animate
        self.remote = remote  # served over SSH: the progress file's path means nothing here
        # `tutor` starts opening the store before it imports Textual; else it starts here
        self.opening_store = opening_store or open_in_background(learner, data_dir, guest=guest)
        self.title = t("app.title", lang)
        self.content: LessonContent | None = None  # None: the progress store failed
        self.ctx: TutorContext
        self._first_screen: Screen

    # start-up ----------------------------------------------------------------

    def on_load(self) -> None:
        """Before the terminal is taken over: the store and the lesson index, so that the
        first screen drawn is the one the learner needs (no empty default screen first)."""
        if not self.animate:
            self.animation_level = "none"
        self._first_screen = self._first()

    def _first(self) -> Screen:
        try:
            store = self.opening_store.result()
        except (StoreError, sqlite3.Error, OSError) as exc:
            # The error screen still needs a context; nothing will be written to it.
            self.ctx = TutorContext(self.lang, open_store(self.learner, guest=True))
            return self._error_screen(
                [t("error.store", self.lang, error=exc)],
                t("error.store_title", self.lang),
                # a served learner can neither see nor change the server's folders
                t("error.store_hint_remote" if self.remote else "error.store_hint", self.lang),
            )
        self.ctx = TutorContext(self.lang, store, self.model_dir)
        self.content = LessonContent(self.content_root, default_cache_dir())
        if self.index.errors:
            return self._problem_screen(self.index.errors)
        from tutor.tui.screens.home import HomeScreen

        return HomeScreen()

    def get_default_screen(self) -> Screen:
        return self._first_screen

    def on_mount(self) -> None:
        if self.start_lesson is not None and not self._broken:
            self.open_lesson(self.start_lesson, self.start_page)

    def on_ready(self) -> None:
        # Not now: the first screen's key line is still to be drawn, and a learner waits
        # for that; a second later nobody does.
        self.set_timer(FREEZE_AFTER_S, self._freeze_startup_objects)

    @staticmethod
    def _freeze_startup_objects() -> None:
        """What survives a collection once the first screen is up (Textual, the app, that
        screen) lives as long as the app. Frozen, it is no longer rescanned by every full
        collection, which took ~30 ms each (the slowest answers to a paste), now ~6 ms.
        Collection may have been off until now (`tutor` starts that way): it is back on."""
        gc.collect()
        gc.freeze()
        gc.enable()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Without animation (served sessions), text cursors do not blink either: a blinking
        cursor redraws twice a second, and fifty idle learners then cost a core's tenth."""
        if not self.animate and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    @property
    def _broken(self) -> bool:
        """The store or the content failed: only the error screen may show."""
        return self.content is None or bool(self.index.errors)

    def show_problems(self, problems: list[Problem]) -> None:
        """Broken content stops here, with the lines `tutor check` prints."""
        self.push_screen(self._problem_screen(problems))

    def _problem_screen(self, problems: list[Problem]) -> Screen:
        title = t("error.title", self.lang, count=len(problems))
        hint = t("error.hint", self.lang, path=self.content_root)
        return self._error_screen([render_problem(problem) for problem in problems], title, hint)

    def _error_screen(self, reports: list[str], title: str, hint: str) -> Screen:
        from tutor.tui.screens.error import ErrorScreen

        return ErrorScreen(reports, title, hint)

    def on_unmount(self) -> None:
        if hasattr(self, "ctx"):
            self.ctx.store.close()

    # lessons -----------------------------------------------------------------

    @property
    def index(self) -> ContentIndex:
        """The lesson index: what the lesson list, the palette and navigation need."""
        return self.content.index if self.content is not None else ContentIndex()

    @property
    def lessons(self) -> tuple[LessonEntry, ...]:
        """Every lesson as the lesson list shows it; `lesson()` has its pages' content."""
        return self.index.lessons

    def lesson(self, lesson_id: str) -> Lesson | None:
        """The validated lesson; the first call builds every lesson (from the cache)."""
        return self.content.lesson(lesson_id) if self.content is not None else None

    def lesson_titles(self) -> dict[str, str]:
        return {lesson.id: lesson.title for lesson in self.lessons}

    def lesson_state(self, lesson: LessonEntry) -> LessonState:
        numbers = {page.number for page in lesson.pages}
        seen = len(self.ctx.store.visited_pages(lesson.id) & numbers)
        locked_by = []
        for prerequisite in lesson.prerequisites:
            needed = self.index.lesson(prerequisite)
            if needed is not None and not self.lesson_state(needed).done:
                locked_by.append(needed.title)
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
        lesson = self.index.lesson(lesson_id)
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
                t("home.locked", self.lang, lesson=lesson.title, needs=needs),
                severity="warning",
            )
            return
        number = page or self.ctx.store.lesson_page(lesson.id) or lesson.pages[0].number
        self.open_page(lesson.id, number)

    def open_page(self, lesson_id: str, number: int) -> None:
        entry = self.index.lesson(lesson_id)
        if entry is None:
            return self.open_lesson(lesson_id)
        if entry.page(number) is None:
            message = t(
                "page.missing", self.lang, lesson=lesson_id, page=number, total=len(entry.pages)
            )
            self.notify(message, severity="error")
            return None
        lesson = self.lesson(lesson_id)
        if self.index.errors:  # the cache did not rebuild, and the files broke since the start
            self.show_problems(self.index.errors)
            return None
        page = next((p for p in lesson.pages if p.number == number), None) if lesson else None
        if lesson is None or page is None:
            return self.open_lesson(lesson_id)
        screen = screen_class(page.kind)(lesson, page)
        from tutor.tui.screens.page import PageScreen

        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if isinstance(self.screen, PageScreen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        return None

    def resume(self) -> None:
        position = self.ctx.store.last_position()
        if position is not None and self.index.lesson(position.lesson) is not None:
            self.open_lesson(position.lesson, position.page)
        elif self.lessons:
            self.open_lesson(self.lessons[0].id)

    # keys --------------------------------------------------------------------

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    def action_help(self) -> None:
        from tutor.tui.screens.help import HelpScreen

        if not isinstance(self.screen, ModalScreen):
            self.push_screen(HelpScreen(self.screen))
