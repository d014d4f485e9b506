"""`tutor preview`: the tutor on an author's lessons, reloading the page on every save.

An author's loop was edit, `tutor check`, restart, find the page again. Here a file
watcher (watchfiles) sees the save, the lessons are loaded again on a thread, and the
same lesson and page reopen at the same scroll position. A save that breaks the content
leaves the last good page on screen with the problems over it, exactly as `tutor check`
prints them, until a later save fixes them. Pages added, renamed or deleted are in the
next load, since every load reads the folder afresh. Progress is kept in memory only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tutor.content.cache import LessonContent
from tutor.content.loader import ParsedFiles, load_lessons
from tutor.content.problems import Problem
from tutor.tui.app import TutorApp
from tutor.tui.screens.error import ErrorScreen
from tutor.tui.screens.home import HomeScreen
from tutor.tui.screens.page import PageScreen
from tutor.tui.widgets.problem import ProblemReport
from tutor.words.i18n import Lang, Speaker, t

if TYPE_CHECKING:
    from watchfiles import Change

STEP_MS = 50  # a save is reported this long after the last write of a burst
KEEP_SCROLL_EVERY_S = 0.02
KEEP_SCROLL_TRIES = 100  # 2 s for a reopened page to grow back to where the author was


class PreviewProblems(ModalScreen[None]):
    """The problems of the last save, over the last page that loaded."""

    DEFAULT_CSS = """
    PreviewProblems { align: center bottom; background: $background 30%; }
    PreviewProblems #problems {
        height: 60%; width: 100%; padding: 0 1;
        border-top: heavy $error; background: $surface;
    }
    PreviewProblems .problems-title { text-style: bold; color: $text-error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "key.close")]

    def __init__(self, problems: list[Problem], title: str, lang: Lang) -> None:
        super().__init__()
        self.problems = problems
        self.title = title
        self.speaker = Speaker(lang)

    def compose(self) -> ComposeResult:
        with Vertical(id="problems"):
            yield Static(Content(self.title), classes="problems-title")
            with VerticalScroll():
                for problem in self.problems:
                    yield ProblemReport(problem, self.speaker)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


class PreviewApp(TutorApp):
    """TutorApp on `content_root` that reloads it when a file under it changes."""

    open_every_lesson = True  # an author is not told of unfinished prerequisites

    def __init__(self, content_root: Path, **options: object) -> None:
        options.setdefault("guest", True)  # an author's clicks are not a learner's progress
        super().__init__(content_root, **options)  # type: ignore[arg-type]
        self.reloads = 0  # loads after the first, good or broken; tests wait on it
        self.last_reload_s = 0.0  # from the save being seen to the page shown again
        self._watcher: asyncio.Task[None] | None = None  # from mount on
        self._parsed = ParsedFiles()  # files parsed by the previous load

    def on_mount(self) -> None:
        super().on_mount()
        # a task, not a worker: it never finishes, and workers are what "settled" waits on
        self._watcher = asyncio.create_task(self._watch())
        # the first screen came from the content cache: parse the files now, so that the
        # first save re-parses one file like every later one
        self.run_worker(self._parse_all, thread=True, name="preview-parse")

    def _parse_all(self) -> None:
        with contextlib.suppress(OSError):  # a file went away meanwhile: a save parses it
            load_lessons(self.content_root, earlier=self._parsed)

    def on_unmount(self) -> None:
        if self._watcher is not None:  # None if the app ended before it mounted
            self._watcher.cancel()
        super().on_unmount()

    async def _watch(self) -> None:
        from watchfiles import awatch

        try:
            async for changes in awatch(self.content_root, step=STEP_MS):
                if any(_is_content(change) for change in changes):
                    try:
                        await self.reload()
                    except OSError:  # a file went away while it was read: the next save
                        continue
        except Exception as error:  # e.g. the system's limit of watched files; a task's
            # exception would otherwise go unseen, and saves would silently stop reloading
            self.notify(t("preview.unwatched", self.lang, error=error), severity="error")

    async def reload(self) -> None:
        """Load the lessons again; show the same page, or the problems over it."""
        seen = time.perf_counter()
        content = await asyncio.to_thread(LessonContent, self.content_root, None, self._parsed)
        self.content = self.ctx.content = content  # the screens read it through both
        errors = content.index.errors
        while isinstance(self.screen, PreviewProblems):
            self.pop_screen()
        if errors:
            title = t("preview.problems", self.lang, count=len(errors))
            if isinstance(self.screen, ErrorScreen):  # broken since the start
                await self.screen.show(errors, t("error.title", self.lang, count=len(errors)))
            else:
                self.push_screen(PreviewProblems(errors, title, self.lang))
        elif isinstance(self.screen, PageScreen):
            self._reopen(self.screen)
        elif isinstance(self.screen, ErrorScreen):
            # pushed, not switched: switching away from the app's first screen leaves the
            # stack empty while the lesson list mounts; the error screen stays under it
            await self.push_screen(HomeScreen())
            if self.start_lesson is not None:
                self.open_lesson(self.start_lesson, self.start_page)
        elif isinstance(self.screen, HomeScreen):  # the list, from the new index
            self.screen.refresh_lessons()
        self.reloads += 1
        self.last_reload_s = time.perf_counter() - seen

    def _reopen(self, shown: PageScreen) -> None:
        """The shown page again from the new load, at the same scroll position; if it is
        gone, the page now at its place in the lesson, else the lesson's first page."""
        lesson_id, number = shown.lesson.id, shown.page.number
        scroll_y = shown.query_one("#body").scroll_y
        entry = self.index.lesson(lesson_id)
        if entry is None:
            self.pop_screen()
            return
        if entry.page(number) is None:
            earlier = [page.number for page in entry.pages if page.number < number]
            number = earlier[-1] if earlier else entry.pages[0].number
        self.open_page(lesson_id, number)
        if scroll_y:
            self._keep_scroll(self.screen, scroll_y)

    def _keep_scroll(self, screen: Screen, scroll_y: float) -> None:
        """Scroll the reopened page to scroll_y once it is that tall: its widgets fill in
        after it mounts. Gives up after KEEP_SCROLL_TRIES and scrolls as far as it can."""
        tries = 0

        def attempt() -> None:
            nonlocal tries
            tries += 1
            try:
                body = screen.query_one("#body")
            except NoMatches:  # not composed yet
                return
            if body.max_scroll_y >= scroll_y or tries >= KEEP_SCROLL_TRIES:
                body.scroll_to(y=scroll_y, animate=False, immediate=True)
                timer.stop()

        timer = self.set_interval(KEEP_SCROLL_EVERY_S, attempt)


def _is_content(change: tuple[Change, str]) -> bool:
    """A lesson file or a folder (a page renamed or a lesson added); not editor litter."""
    path = Path(change[1])
    return path.suffix == ".md" or path.suffix == ""
