"""TutorApp: lessons as screens, one Screen class per page kind, progress saved as it happens.

The app owns what screens share (lessons, the context with the store and the model) and
navigation; screens own their page; widgets own their interaction and call the core in
thread workers. Broken content never reaches a page: it stops at the error screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.notifications import Notify
from textual.screen import ModalScreen, Screen

from tutor import tuning
from tutor.content.cache import LessonContent, open_content
from tutor.content.index import ContentIndex, LessonEntry
from tutor.content.problems import Problem
from tutor.core.paths import default_cache_dir
from tutor.lazy import load
from tutor.progress.opening import open_in_background, open_store
from tutor.progress.store import ProgressStore, StoreError
from tutor.tui import cjk_wrap, css_cache
from tutor.tui.compat import CompositorUpdate
from tutor.tui.context import TutorContext
from tutor.tui.crash_path import QuietCrashApp
from tutor.tui.messages import OpenLesson, OpenPage, Resume, TurnPage
from tutor.tui.palette import LessonPages
from tutor.tui.pool import use_fresh_context_pool
from tutor.tui.sent_rows import SentRows
from tutor.tui.widgets.keybar import MIN_SIZE, KeyBar
from tutor.words.i18n import Lang, t

if TYPE_CHECKING:
    from collections.abc import Awaitable, Iterable
    from concurrent.futures import Future

    from rich.console import RenderableType
    from textual.driver import Driver
    from textual.widget import Widget

    from tutor.content.models import Lesson, Page
    from tutor.tui.driver import InputEnded, InputHeld, PasteCut
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
KEPT_PAGES = 2  # the page shown and the one before it: n then p (or p then n) is instant
# What the learner typed into the fields of a page taken down is kept in memory (never on
# disk) for when the page is built again: for the TYPED_PAGES pages taken down last (the
# shipped lesson has 7 pages with fields, at most 8 fields on one), each value cut at its
# field's maximum length, else at LONGEST_TYPED (the longest text a field takes, as
# tutor.tui.driver's MAX_PASTE_CHARS). Older pages are dropped first while all kept values
# pass TYPED_CHARS together: the newest page's and at most 200,000 more (< 1 MB).
TYPED_PAGES = 8
LONGEST_TYPED = 100_000
TYPED_CHARS = 200_000
MAX_NOTICES = 3  # shown at once, each a few lines: at 80×24 they stay below the header
# a stop waits for the widgets' queues this many times (a key's hops to a saved draft, and
# spare), each at most _HOP_WAIT_S: the server kills a tutor still running 3 s after it
_MESSAGE_HOPS = 6
_HOP_WAIT_S = 0.3


# What a lesson's demonstrations load and core modules keep by name, let go when the
# learner leaves the lesson (docs/performance.md): (module, its function that releases it)
LESSON_CACHES = (
    ("tutor.core.tokenize", "release_schemes"),
    ("tutor.core.merges", "release_rules"),
)


def _release_lesson_caches() -> None:
    """Release the caches of the modules already loaded; a module never loaded has none,
    and importing it here would cost the page turn its import."""
    for name, release in LESSON_CACHES:
        module = sys.modules.get(name)
        if module is not None:
            getattr(module, release)()


class TutorApp(QuietCrashApp):
    CSS_PATH = "tutor.tcss"
    COMMANDS = App.COMMANDS | {LessonPages}
    open_every_lesson = False  # learners are told of unfinished prerequisites, authors not

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "key.help"),
        Binding("q", "quit", "key.quit"),
        Binding("ctrl+p", "command_palette", "key.palette"),
        Binding("t", "toggle_theme", "key.theme", show=False),
        # Priority: the focus moves as the App reads Tab, so keys read with it go to the
        # widget Tab reached (as bindings, they moved it only after those keys had been
        # forwarded to the widget being left, and were lost there).
        Binding("tab", "focus_next", "key.next_stop", show=False, priority=True),
        Binding("shift+tab", "focus_previous", "key.prev_stop", show=False, priority=True),
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
        start_explore: bool = False,
        animate: bool = True,
        remote: bool = False,
        opening_store: Future[ProgressStore] | None = None,
    ) -> None:
        cjk_wrap.install()  # before anything is measured: lesson prose is mostly Chinese
        css_cache.install()
        super().__init__()
        self.content_root = content_root
        self.model_dir = model_dir
        self.lang: Lang = lang
        self.learner = learner
        self.start_lesson = start_lesson
        self.start_page = start_page
        self.start_explore = start_explore  # `tutor explore`: the model workbench first
        self.animate = animate
        self.remote = remote  # served over SSH: the progress file's path means nothing here
        # `tutor` starts opening the store before it imports Textual; else it starts here
        self.opening_store = opening_store or open_in_background(learner, data_dir, guest=guest)
        self.title = t("app.title", lang)
        self.ctx: TutorContext
        self._first_screen: Screen
        self._turning_to: tuple[str, int] | None = None  # page turns not yet drawn
        self._opening: tuple[str, int] | None = None  # the page open_page went to last
        self._focused_before_small: Widget | None = None  # focus to give back, see _fit
        self._kept: list[PageScreen] = []  # built pages kept, least recently shown first
        self._long_lived_frozen = False  # see _freeze_long_lived
        # what was typed on pages taken down, by (lesson id, page number), oldest first
        self._typed: dict[tuple[str, int], dict[str, str]] = {}
        self._sent_rows = SentRows()  # what the terminal shows, see _display

    # start-up ----------------------------------------------------------------

    def get_css_variables(self) -> dict[str, str]:
        """Textual's, worked out once per theme in the process (tutor.tui.css_cache): a
        served session finds them in its template."""
        return css_cache.theme_variables(self, super().get_css_variables)

    def on_load(self) -> None:
        """Before the terminal is taken over: the store and the lesson index, so that the
        first screen drawn is the one the learner needs (no empty default screen first)."""
        if not self.animate:
            self.animation_level = "none"
        use_fresh_context_pool(asyncio.get_running_loop())
        self._fit(self.size)
        self._first_screen = self._first()

    def _first(self) -> Screen:
        try:
            store = self.opening_store.result()
        except (StoreError, sqlite3.Error, OSError) as exc:
            # The error screen still needs a context; nothing will be written to it.
            self.ctx = TutorContext(self.lang, open_store(self.learner, guest=True))
            from tutor.words.refusals import why_not_saved

            said = [t("error.store", self.lang, why=why_not_saved(self.ctx, exc))]
            location = getattr(exc, "values", {}).get("location")
            if location and not self.remote:  # a served learner is not shown server paths
                said.append(t("error.store_where", self.lang, location=location))
            return self._error_screen(
                said,
                t("error.store_title", self.lang),
                # a served learner can neither see nor change the server's folders
                t("error.store_hint_remote" if self.remote else "error.store_hint", self.lang),
            )
        self.ctx = TutorContext(
            self.lang,
            store,
            self.model_dir,
            remote=self.remote,
            open_every_lesson=self.open_every_lesson,
        )
        self.content = open_content(self.content_root, default_cache_dir())
        if self.index.errors:
            return self._problem_screen(self.index.errors)
        from tutor.tui.screens.home import HomeScreen

        return HomeScreen()

    def get_driver_class(self) -> type[Driver]:
        """Textual's terminal driver, reading keys no faster than the app handles them and
        cutting huge pastes (tutor.tui.driver)."""
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is LinuxDriver:
            from tutor.tui.driver import PacedDriver

            return PacedDriver
        return driver

    def _display(self, screen: Screen, renderable: RenderableType | None) -> None:
        """Only the rows the terminal does not show yet (tutor.tui.sent_rows), when the
        frame is written to a terminal at all (Textual's conditions)."""
        driver = self._driver
        if (
            isinstance(renderable, CompositorUpdate)
            and driver is not None
            and not driver.is_inline
            and self.is_running
            and not (self._closed or self._batch_count or self.is_headless)
        ):
            epoch = getattr(driver, "terminal_epoch", None)
            renderable = self._sent_rows.new_part(renderable, self.size, (driver, epoch))
        super()._display(screen, renderable)

    def get_default_screen(self) -> Screen:
        return self._first_screen

    def on_mount(self) -> None:
        if self.start_lesson is not None and not self._broken:
            self._freeze_long_lived(collect=False)  # the first screen waits for no collection
            self.open_lesson(self.start_lesson, self.start_page)
        if self.start_explore and not self._broken:
            from tutor.tui.screens.explore import ExploreScreen

            self.push_screen(ExploreScreen())

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size)

    def _fit(self, size: Size) -> None:
        """Below MIN_SIZE every screen shows only its key line, which says so (tutor.tcss);
        the pages come back as the window grows."""
        small = size.width < MIN_SIZE[0] or size.height < MIN_SIZE[1]
        if small != self.has_class("-too-small"):
            running = self.is_running and bool(self.screen_stack)  # in on_load: no screen
            if small and running:  # hidden, the focused widget loses the focus: kept here
                self._focused_before_small = self.screen.focused
            self.set_class(small, "-too-small")
            if running:
                for key_line in self.screen.query(KeyBar):
                    key_line.show_keys()
            if not small and running:
                self.call_after_refresh(self._refocus, self._focused_before_small)
                self._focused_before_small = None

    def _refocus(self, widget: Widget | None) -> None:
        """The widget that had the focus has it again, if its page is still the one shown."""
        if widget is not None and widget.is_attached and widget.screen is self.screen:
            widget.focus(scroll_visible=False)

    def on_ready(self) -> None:
        # Not now: the first screen's key line is still to be drawn, and a learner waits
        # for that; a second later nobody does.
        self.set_timer(tuning.FREEZE_AFTER_S, self._freeze_long_lived)
        # Once that line is drawn and before any key can open a page (whose workers are
        # the threads that would each keep an arena). It loads ctypes, which the first
        # screen does without.
        self.call_after_refresh(tuning.limit_arenas)

    def _freeze_long_lived(self, collect: bool = True) -> None:
        """What the app made before its first page lives as long as it does: frozen once
        (tutor.tuning), a second after the first screen or before the first page is built
        if that comes sooner. Never with a page open: a frozen page is never freed."""
        if not self._long_lived_frozen:
            self._long_lived_frozen = True
            tuning.collect_from_now(collect)

    @staticmethod
    def _collect_pages_left() -> None:
        """Once the new page is on screen, not in the middle of building it (tutor.tuning)."""
        tuning.collect_after_page_turn()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Without animation (served sessions), text cursors do not blink either: a blinking
        cursor redraws twice a second, and fifty idle learners then cost a core's tenth."""
        if not self.animate and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def _on_notify(self, event: Notify) -> None:
        """A notice shown once: a repeat replaces the one shown (its time starts again)
        instead of stacking, and at most MAX_NOTICES are up, the newest, so they never
        reach over the page header (Textual's own handler, which only adds, runs last)."""
        new = event.notification
        shown = list(self._notifications)
        others = [n for n in shown if (n.title, n.message) != (new.title, new.message)]
        kept = {n.identity for n in others[max(0, len(others) - (MAX_NOTICES - 1)) :]}
        for notification in shown:
            if notification.identity not in kept:
                self._unnotify(notification, refresh=False)
        super()._on_notify(event)

    @property
    def _broken(self) -> bool:
        """The store or the content failed: only the error screen may show."""
        return self.content is None or bool(self.index.errors)

    def show_problems(self, problems: list[Problem]) -> None:
        """Broken content stops here, with the lines `tutor check` prints."""
        self.push_screen(self._problem_screen(problems))

    def _problem_screen(self, problems: list[Problem]) -> Screen:
        title = t("error.title", self.lang, count=len(problems))
        if self.remote:  # a served learner is not shown server paths
            root = Path(self.content_root).resolve()
            seen = [problem.seen_from(root) for problem in problems]
            return self._error_screen(list(seen), title, t("error.hint_remote", self.lang))
        hint = t("error.hint", self.lang, path=self.content_root)
        return self._error_screen(list(problems), title, hint)

    def _error_screen(self, reports: list[Problem | str], title: str, hint: str) -> Screen:
        from tutor.tui.screens.error import ErrorScreen

        return ErrorScreen(reports, title, hint, self.lang)

    def on_unmount(self) -> None:
        if hasattr(self, "ctx"):
            self.ctx.store.close()
        tuning.restore_collection()  # the process may go on (tests, a preview)

    # lessons -----------------------------------------------------------------

    @property
    def content(self) -> LessonContent | None:
        """The lessons, None when the progress store failed. Kept in the shared context,
        where the screens read it; setting it (a preview's reload) changes it there."""
        ctx: TutorContext | None = getattr(self, "ctx", None)
        return ctx.content if ctx is not None else None

    @content.setter
    def content(self, content: LessonContent) -> None:
        self.ctx.content = content

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
        state = self.ctx.lesson_state(lesson)
        if page is None and state.waiting_for:  # opened from the list or the last page
            needs = "、".join(state.waiting_for)
            self.notify(t("home.prerequisite_note", self.lang, needs=needs))
        number = page or self.ctx.store.lesson_page(lesson.id) or lesson.pages[0].number
        self._prefetch_facts(lesson.id)
        self.open_page(lesson.id, number)

    def _prefetch_facts(self, lesson_id: str) -> None:
        """Start measuring the run-time facts (tutor.core.runfacts) when a lesson that
        quotes one opens: its page with them then opens at once."""
        facts = self.ctx.facts
        pending = getattr(facts, "pending", frozenset())
        if not pending:
            return
        from tutor.content.prose import find_fact_refs

        for path in sorted((Path(self.content_root) / lesson_id).glob("*.md")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, ValueError):
                continue
            if any(ref.key in pending for ref in find_fact_refs(text)):
                facts.prefetch()  # type: ignore[attr-defined]
                return

    def open_page(self, lesson_id: str, number: int) -> None:
        if self.content is None:
            return
        found = self.content.page(lesson_id, number)
        if found is None:
            entry = self.index.lesson(lesson_id)
            if self.index.errors:  # the files broke since the start, and no cache rebuilt
                self.show_problems(self.index.errors)
            elif entry is None:
                self.open_lesson(lesson_id)  # says which lessons there are
            else:
                total = len(entry.pages)
                message = t("page.missing", self.lang, lesson=lesson_id, page=number, total=total)
                self.notify(message, severity="error")
            return
        lesson, page = found
        if self._opening is not None and self._opening[0] != lesson_id:
            _release_lesson_caches()
        self._opening = (lesson_id, number)
        screen = self._page_screen(lesson, page)
        from tutor.tui.screens.page import PageScreen

        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if isinstance(self.screen, PageScreen):
            shown: Awaitable[object] = self.switch_screen(screen)
        else:
            shown = self.push_screen(screen)
        self.call_next(self._forget_pages, shown)

    def _page_screen(self, lesson: Lesson, page: Page) -> PageScreen:
        """The page's screen: kept from an earlier visit (with what the learner typed and
        the widgets' answers), else built, and kept among the last KEPT_PAGES."""
        kept = next((s for s in self._kept if s.page is page), None)  # same load of the files
        if kept is not None:
            self._kept.remove(kept)
            self._kept.append(kept)
            return kept
        self._freeze_long_lived()
        screen = screen_class(page.kind)(lesson, page)
        typed = self._typed.pop((lesson.id, page.number), None)
        if typed is not None:
            screen.typed.before = typed
        self.install_screen(screen, f"page-{id(screen)}")
        self._kept.append(screen)
        return screen

    async def _forget_pages(self, shown: Awaitable[object]) -> None:
        """Once the page is shown (and the one it replaced has left the stack), take down
        kept pages beyond the last KEPT_PAGES and pages of an earlier load of the files."""
        await shown
        newest: dict[str | None, PageScreen] = {}
        for screen in self._kept:
            newest[screen.name] = screen
        recent = set(self._kept[-KEPT_PAGES:])
        left_behind = False
        for screen in list(self._kept):
            if screen in recent and newest[screen.name] is screen:
                continue
            if any(screen is shown for shown in self.screen_stack):
                continue
            self._kept.remove(screen)
            self._keep_typed(screen)
            self.uninstall_screen(screen)
            if screen.is_attached:
                await screen.remove()
            left_behind = True
        if left_behind:
            # a refresh later than the page's own callbacks: as it left, its focus queued
            # one (Screen.refresh_bindings) to run after this refresh, and that held it
            self.call_after_refresh(self.call_after_refresh, self._collect_pages_left)

    def _keep_typed(self, screen: PageScreen) -> None:
        """What the learner typed on a page being taken down, for its next build."""
        key = (screen.lesson.id, screen.page.number)
        self._typed.pop(key, None)
        typed = screen.typed.now(LONGEST_TYPED)
        if not typed:
            return
        self._typed[key] = typed  # the newest last
        total = sum(len(text) for page in self._typed.values() for text in page.values())
        while len(self._typed) > 1 and (len(self._typed) > TYPED_PAGES or total > TYPED_CHARS):
            oldest = next(iter(self._typed))
            total -= sum(len(text) for text in self._typed.pop(oldest).values())

    def turn_page(self, lesson_id: str, number: int, step: int) -> None:
        """`step` pages on from where turns not yet drawn lead, else from the page last
        opened in this lesson, else from `number` (the page the key was pressed on).

        Only where a run of quick turns ends is drawn: the page is built once the keys
        already waiting are handled (30 quick presses of n build one page, not 30)."""
        entry = self.index.lesson(lesson_id)
        if entry is None:
            return
        # from the page last opened, not the one the key was pressed on: a key typed while
        # a page is built reaches the page it replaces, and would turn to the same page
        heading = self._turning_to or self._opening
        if heading is not None and heading[0] == lesson_id:
            number = heading[1]
        numbers = [page.number for page in entry.pages]
        position = numbers.index(number) + step if number in numbers else 0
        if not 0 <= position < len(numbers):
            edge = "page.last" if step > 0 else "page.first"
            if self._turning_to is None:
                self.notify(t(edge, self.lang))
            position = min(max(position, 0), len(numbers) - 1)
        if self._turning_to is None:
            self.call_later(self._finish_turn)
        self._turning_to = (lesson_id, numbers[position])

    def _finish_turn(self) -> None:
        if self._turning_to is not None:
            (lesson_id, number), self._turning_to = self._turning_to, None
            screen = self.screen
            if getattr(screen, "page", None) is None or screen.name != f"{lesson_id}:{number}":
                self.open_page(lesson_id, number)

    def resume(self) -> None:
        position = self.ctx.store.last_position()
        if position is not None and self.index.lesson(position.lesson) is not None:
            self.open_lesson(position.lesson, position.page)
        elif self.lessons:
            self.open_lesson(self.lessons[0].id)

    # what screens ask ---------------------------------------------------------

    def on_open_lesson(self, message: OpenLesson) -> None:
        self.open_lesson(message.lesson_id, message.page)

    def on_open_page(self, message: OpenPage) -> None:
        self.open_page(message.lesson_id, message.number)

    def on_turn_page(self, message: TurnPage) -> None:
        self.turn_page(message.lesson_id, message.number, message.step)

    def on_resume(self, _message: Resume) -> None:
        self.resume()

    def on_input_held(self, _message: InputHeld) -> None:
        """The driver stopped reading keys until the app catches up (tutor.tui.driver)."""
        self.notify(t("input.held", self.lang), severity="warning", timeout=10)

    def on_input_ended(self, message: InputEnded) -> None:
        """The terminal went away (tutor.tui.driver): end as after `q`, saving what is
        pending. What is still drawn or printed goes nowhere: written to the terminal it
        would fail, and Python would end with status 120. A piped stdin that ran out leaves
        the app running (nothing is lost)."""
        if not message.terminal:
            return
        nowhere = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            os.dup2(nowhere, fd)
        os.close(nowhere)
        self.exit()

    def on_paste_cut(self, message: PasteCut) -> None:
        chars, limit = f"{message.chars:,}", f"{message.limit:,}"
        self.notify(
            t("input.paste_cut", self.lang, chars=chars, limit=limit),
            severity="warning",
            timeout=10,
        )

    def stop_for_signal(self, signum: int) -> None:
        """Told to stop (SIGTERM, SIGHUP: set by `tutor`): the keys already typed are read
        and handled, then the app ends as after q, so the pages save them; with the status
        a shell gives a process stopped by a signal."""
        from tutor.tui.driver import PacedDriver

        code = 128 + signum
        if isinstance(self._driver, PacedDriver):
            self._driver.after_input(partial(self._exit_once_handled, code))
        else:
            self.exit(return_code=code)

    async def _exit_once_handled(self, code: int) -> None:
        """Exit once the keys handed over have gone through the focused widget and the
        messages it posted: a typed letter reaches the page's draft in a few hops (the
        field, its change, the editor's draft message), each in another widget's queue.
        A round after which every queue is empty ends the wait: nothing is in flight (a
        learner who typed nothing took six rounds, 2.4 ms of a served session's CPU)."""
        for _ in range(_MESSAGE_HOPS):
            handled: list[asyncio.Event] = []
            widgets = list(self.screen.walk_children(with_self=True))
            for pump in widgets:
                event = asyncio.Event()
                if pump.call_later(event.set):
                    handled.append(event)
            with contextlib.suppress(TimeoutError):
                waits = (event.wait() for event in handled)
                await asyncio.wait_for(asyncio.gather(*waits), _HOP_WAIT_S)
            if not any(pump.message_queue_size for pump in (self, *widgets)):
                break  # every message sent before this round is handled, and none since
        self.exit(return_code=code)

    # the lesson and nothing outside it ---------------------------------------

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Never start a browser (over SSH it would start on the server): show the address
        for the learner to open themselves."""
        self.notify(t("link.outside", self.lang, url=url), timeout=10)

    # keys --------------------------------------------------------------------

    def action_command_palette(self) -> None:
        """Textual's palette, asking in the learner's language."""
        from tutor.tui.palette import Palette

        if self.use_command_palette and not Palette.is_open(self):
            placeholder = t("palette.placeholder", self.lang)
            nothing = t("palette.nothing", self.lang)
            self.push_screen(Palette(nothing, id="--command-palette", placeholder=placeholder))

    def action_help_quit(self) -> None:
        """ctrl+c (Textual's reflex catcher) names the keys the key bar shows for quitting, in the
        learner's language: Textual's own notice is English."""
        keys: list[str] = []
        for active in self.active_bindings.values():
            if active.binding.show and active.binding.action in ("quit", "app.quit"):
                display = self.get_key_display(active.binding)
                if display not in keys:
                    keys.append(display)
        if keys:
            how = t("quit.how", self.lang, keys="/".join(keys))
            self.notify(how, title=t("quit.ask", self.lang), markup=False)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette's own commands, in the learner's language. Textual's key panel is
        not offered (it shows binding descriptions untranslated): "Keys" opens the help,
        which lists this screen's keys in words. Nor is Textual's "Screenshot": it writes an
        SVG into the account's Downloads folder, over SSH the server's disk, filled by anyone
        pressing Enter; a local learner's terminal takes screenshots already."""
        yield SystemCommand(
            t("palette.theme", self.lang),
            t("palette.theme_help", self.lang),
            self.action_toggle_theme,
        )
        yield SystemCommand(
            t("palette.keys", self.lang), t("palette.keys_help", self.lang), self.action_help
        )
        yield SystemCommand(
            t("palette.quit", self.lang), t("palette.quit_help", self.lang), self.action_quit
        )

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    def action_help(self) -> None:
        from tutor.tui.screens.help import HelpScreen

        if not isinstance(self.screen, ModalScreen):
            self.push_screen(HelpScreen(self.screen))
