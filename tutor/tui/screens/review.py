"""`tutor review`: the teacher goes through the class one learner at a time and marks
each answer (tutor.tui.widgets.marking); the screen owns the writes.

A mark is saved as it is set; the comment a moment after typing stops (SAVE_DELAY), and
at once on turning to another learner or quitting. A save that fails is said on the
status line and in a notification, and the marks stay on screen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from tutor.core.printable import printable
from tutor.progress.store import StoreError
from tutor.tui.context import tutor_context
from tutor.tui.screens.saving import SAVE_DELAY, store_errors
from tutor.tui.widgets.keybar import KeyBar, typing_into
from tutor.tui.widgets.marking import ItemMarking, MarksChanged

if TYPE_CHECKING:
    from tutor.content.models import Lesson
    from tutor.progress.marks import TeacherMarks
    from tutor.progress.review import LearnerAnswers


class ReviewScreen(Screen[None]):
    AUTO_FOCUS = "MarkToggle"
    ESC_LEAVES_FIELDS: ClassVar[bool] = True
    SHOWS_FACTS: ClassVar[bool] = False  # its help leaves out the facts' evidence marks
    DEFAULT_CSS = """
    ReviewScreen #review-title { height: 1; background: $panel; text-style: bold; padding: 0 1; }
    ReviewScreen #review-status { height: 1; padding: 0 1; }
    ReviewScreen #answers { padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,right", "learner(1)", "key.next_learner"),
        Binding("p,left", "learner(-1)", "key.prev_learner"),
        Binding("question_mark", "help", "key.help"),
        Binding("q", "quit_review", "key.quit"),
        Binding("escape", "leave_field", show=False),
    ]

    def __init__(self, lessons: list[Lesson], learners: list[LearnerAnswers]) -> None:
        """`learners`: one entry per learner and lesson (tutor.progress.review)."""
        super().__init__()
        self.lessons = {lesson.id: lesson for lesson in lessons}
        self.learners = learners
        self.at = 0
        self._pending: dict[str, TeacherMarks] = {}  # comments typed, not saved yet
        self._timer: Timer | None = None

    help_key = "help.review"

    def help_title(self) -> str:
        return tutor_context(self).t("review.app_title")

    def action_help(self) -> None:
        from tutor.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self))

    def compose(self) -> ComposeResult:
        yield Static(id="review-title")
        yield Static(id="review-status")
        yield VerticalScroll(*self._markings(), id="answers")
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_title()

    def _markings(self) -> list[ItemMarking] | list[Static]:
        if not self.learners:
            return [Static(tutor_context(self).t("review.nobody"))]
        shown = self.learners[self.at]
        return [ItemMarking(self.lessons[shown.lesson], answer) for answer in shown.answers]

    def _show_title(self) -> None:
        ctx = tutor_context(self)
        if not self.learners:
            title = ctx.t("review.title_empty", lesson=", ".join(self.lessons))
        else:
            name = printable(self.learners[self.at].name)
            total = len(self.learners)
            lesson = self.learners[self.at].lesson
            title = ctx.t("review.title", lesson=lesson, n=self.at + 1, total=total)
            title = f"{title}{name}"
        self.query_one("#review-title", Static).update(Content(title))

    def _status(self, text: str, style: str = "dim italic") -> None:
        self.query_one("#review-status", Static).update(Content.styled(text, style))

    async def action_learner(self, step: int) -> None:
        if len(self.learners) < 2:
            return
        self.save_pending()
        self.at = (self.at + step) % len(self.learners)
        answers = self.query_one("#answers", VerticalScroll)
        await answers.remove_children()
        await answers.mount_all(self._markings())
        answers.scroll_home(animate=False)
        self._show_title()
        self._status("")
        toggles = self.query("MarkToggle")
        if toggles:
            toggles.first().focus()

    def action_leave_field(self) -> None:
        if typing_into(self.focused):
            self.save_pending()
            self.focus_next("MarkToggle")

    def action_quit_review(self) -> None:
        self.save_pending()
        self.app.exit()

    def on_marks_changed(self, message: MarksChanged) -> None:
        shown = self.learners[self.at]
        shown.answers[:] = [  # what turning back to this learner shows
            replace(answer, marks=message.marks) if answer.item == message.item else answer
            for answer in shown.answers
        ]
        if message.typed:
            self._pending[message.item] = message.marks
            if self._timer is None:
                self._timer = self.set_timer(SAVE_DELAY, self.save_pending)
            self._status(tutor_context(self).t("review.saving"))
            return
        self._pending.pop(message.item, None)  # the marks carry the comment too
        self._save(message.item, message.marks)

    def save_pending(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        pending, self._pending = self._pending, {}
        for item, marks in pending.items():
            self._save(item, marks)

    def _save(self, item: str, marks: TeacherMarks) -> None:
        ctx = tutor_context(self)
        shown = self.learners[self.at]
        try:
            ctx.store.save_teacher_marks(shown.learner, shown.lesson, item, marks)
        except (*store_errors(ctx.store), StoreError) as exc:
            from tutor.words.refusals import why_not_saved

            said = ctx.t("review.not_saved", why=why_not_saved(ctx, exc))
            self._status(said, "bold $text-error")
            self.notify(said, severity="error", timeout=10)
            return
        self._status(ctx.t("review.saved"))

    def on_unmount(self) -> None:
        self.save_pending()
