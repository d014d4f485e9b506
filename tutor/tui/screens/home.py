"""The course map: the lessons in order, each with its progress, where the learner stopped
and what it comes after; and the way back to where the learner stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from tutor.core.printable import printable
from tutor.tui.context import tutor_context
from tutor.tui.messages import OpenLesson, Resume
from tutor.tui.screens.sizing import ResizedOnlyByANewSize
from tutor.tui.widgets.keybar import KeyBar
from tutor.tui.widgets.lesson_list import LessonList

if TYPE_CHECKING:
    from tutor.content.index import LessonEntry
    from tutor.progress.store import Position
    from tutor.tui.lessons import LessonState


class HomeScreen(ResizedOnlyByANewSize):
    help_key = "help.home"
    AUTO_FOCUS = "#lessons"  # focused as the screen starts, not after the body first

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "resume", "key.resume"),
        # The focused list answers Enter itself (LEAD_KEYS names it): not shown twice.
        Binding("enter", "open", "key.open", show=False),
    ]
    # the lesson list's own keys, first on the key line (Textual describes them in English)
    LEAD_KEYS = (("↑↓", "key.choose"), ("enter", "key.open"))

    def __init__(self) -> None:
        super().__init__()
        self.where_lines: list[str] = []
        # what the map shows now: where the learner is, and each lesson's option
        self._shown: list[str] = []
        self._just_built = False  # composed, not yet shown

    def help_title(self) -> str:
        return tutor_context(self).t("home.heading")

    def compose(self) -> ComposeResult:
        """Filled as it is built: filled after the first layout instead, the course map
        was laid out and drawn twice as the tutor started, a third of a served start."""
        ctx = tutor_context(self)
        where, options, stopped_in = self._map()
        self._shown = _drawn(where, options)
        self._just_built = True
        yield Static(Content.styled(ctx.t("app.title"), "bold"), id="page-header")
        yield Static(where, id="where")
        yield LessonList(options, stopped_in or 0, id="lessons")
        yield KeyBar()

    def on_screen_resume(self) -> None:
        """Drawn again on every return, with fresh progress (when it changed); not as the
        screen first shows, a moment after compose read it."""
        if self._just_built:
            self._just_built = False
            return
        self.refresh_lessons()

    def _state_text(self, state: LessonState) -> str:
        ctx = tutor_context(self)
        if state.done:
            return ctx.t("home.state.done")
        if state.seen:
            text = ctx.t("home.state.in_progress", seen=state.seen, total=state.total)
            if state.stopped_at is not None:
                text += " · " + ctx.t("home.state.stopped", page=state.stopped_at)
            return text
        return ctx.t("home.state.not_started")

    def _needs_text(self, lesson: LessonEntry, state: LessonState) -> str | None:
        """The lessons this one comes after, each ticked when done; None if it needs none."""
        index = tutor_context(self).index
        titles = [entry.title for entry in map(index.lesson, lesson.prerequisites) if entry]
        if not titles:
            return None
        ticked = [title if title in state.waiting_for else f"{title} ✓" for title in titles]
        return tutor_context(self).t("home.needs", needs="、".join(ticked))

    def _option(self, number: int, lesson: LessonEntry) -> tuple[str, Content]:
        ctx = tutor_context(self)
        state = ctx.lesson_state(lesson)
        mark = "✓" if state.done else "•"
        needs = self._needs_text(lesson, state)
        prompt = Content.assemble(
            (f"{number}. {mark} {lesson.title}", "bold"),
            f"  [{self._state_text(state)}]\n",
            *(
                [(f"   {needs}\n", "$text-warning" if state.waiting_for else "dim")]
                if needs
                else []
            ),
            (f"   {ctx.t('home.question', question=lesson.question)}", "dim"),
        )
        return lesson.id, prompt

    def _map(self) -> tuple[Content, list[tuple[str, Content]], int | None]:
        """Where the learner stands, the lessons as options, and which to highlight: the
        one where the learner stopped, so that Enter goes on with it (the place read once
        for all three)."""
        ctx = tutor_context(self)
        lessons = ctx.index.lessons
        options = [self._option(n, lesson) for n, lesson in enumerate(lessons, 1)]
        position = ctx.store.last_position()
        ids = [lesson.id for lesson in lessons]
        stopped_in = ids.index(position.lesson) if position and position.lesson in ids else None
        return self._where(position), options, stopped_in

    def _where(self, position: Position | None) -> Content:
        """Whose progress this is, where it is kept and where the learner stopped; then the
        list's heading (one widget for both: each widget costs a served start about 2 ms)."""
        ctx = tutor_context(self)
        store = ctx.store
        lines = [ctx.t("home.guest")] if store.guest else []
        learner = printable(store.learner)  # any text `--learner` was given
        if ctx.remote and not store.guest:
            lines.append(ctx.t("home.saved_remote", learner=learner))
        elif not store.guest:
            lines.append(ctx.t("home.saved_at", path=store.location, learner=learner))
        lesson = ctx.index.lesson(position.lesson) if position else None
        if position and lesson:
            lines.append(ctx.t("home.resume", lesson=lesson.title, page=position.page))
        else:
            lines.append(ctx.t("home.nothing"))
        self.where_lines = lines
        style = "bold $text-warning" if store.guest else ""
        heading = (f"\n{ctx.t('home.heading')}", "bold underline")
        return Content.assemble((lines[0], style), *(f"\n{line}" for line in lines[1:]), heading)

    def refresh_lessons(self) -> None:
        """Progress as the store has it now; what has not changed is not drawn again."""
        where, options, stopped_in = self._map()
        shown = _drawn(where, options)
        if shown == self._shown:
            return
        self._shown = shown
        lessons = self.query_one("#lessons", LessonList)
        highlighted = lessons.highlighted
        lessons.set_options(options, stopped_in if stopped_in is not None else highlighted)
        self.query_one("#where", Static).update(where)

    def on_lesson_list_opened(self, event: LessonList.Opened) -> None:
        event.stop()
        self.post_message(OpenLesson(event.lesson_id))

    def action_open(self) -> None:
        lesson_id = self.query_one("#lessons", LessonList).highlighted_id
        if lesson_id is not None:
            self.post_message(OpenLesson(lesson_id))

    def action_resume(self) -> None:
        self.post_message(Resume())

    def plain_text(self) -> str:
        lines = list(self.where_lines)
        for number, lesson in enumerate(tutor_context(self).index.lessons, 1):
            state = tutor_context(self).lesson_state(lesson)
            needs = self._needs_text(lesson, state)
            line = f"{number}. {lesson.title} ({lesson.id}): {self._state_text(state)}"
            lines.append(f"{line}; {needs}" if needs else line)
        return "\n".join(lines)


def _drawn(where: Content, options: list[tuple[str, Content]]) -> list[str]:
    """What the map draws, styles included (Content's own == compares the text alone)."""
    return [where.markup, *(prompt.markup for _, prompt in options)]
