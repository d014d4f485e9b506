"""The screen side of saving: widgets post what the learner did, the screen writes it.

A page's widgets never touch the progress store. They post a `Saving` message (an answer,
a tick, a summary draft, a submission); the page saves it and tells the widget whether it
could (`saved(message, ok)`), so the widget never says "saved" when it was not. A store
that cannot write (a read-only or full disk, a database gone, a per-learner limit) is a
notification in the learner's language, never an exception: the learner's work stays on
screen and the lesson goes on.

Drafts (summary sections, and quiz answers typed or ticked but not submitted) are saved
throttled, not debounced: the first change after a save schedules the next save SAVE_DELAY
later, so non-stop typing still reaches the store every SAVE_DELAY, and a killed session
loses less than a second. Leaving the page (or quitting) saves at once. A submitted quiz
answer replaces its draft: the store deletes it with the attempt.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from textual.timer import Timer

from tutor.progress.store import ProgressStore, StoreError
from tutor.tui.context import tutor_context
from tutor.tui.messages import (
    DraftChanged,
    QuestionAnswered,
    QuizDraftChanged,
    Saving,
    SelfCheckMarked,
    SummaryDraftChanged,
    SummarySubmitted,
)
from tutor.tui.screens.sizing import ResizedOnlyByANewSize
from tutor.words.refusals import why_not_saved

if TYPE_CHECKING:
    from textual.widget import Widget

    from tutor.progress.marks import TeacherMarks
    from tutor.tui.widgets.quiz import SavedAnswer
    from tutor.tui.widgets.summary import SavedSummary

SAVE_DELAY = 0.4  # seconds from a draft's change to its save
T = TypeVar("T")


class SavingWidget(Protocol):
    def saved(self, message: Saving, ok: bool) -> None:
        """Told, after the screen tried, whether what `message` asked to keep is kept."""


def store_errors(store: ProgressStore) -> tuple[type[Exception], ...]:
    """What a store raises when it cannot read or write: its driver's errors and ours."""
    driver: tuple[type[Exception], ...] = getattr(store, "WRITE_ERRORS", ())
    return (*driver, StoreError, sqlite3.Error, OSError)


class SavesProgress(ResizedOnlyByANewSize):
    """A screen that owns the progress store's reads and writes for its widgets."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name=name)
        # per widget with drafts: its latest change, and the latest of each key not saved yet
        self._drafts: dict[Widget, tuple[DraftChanged, dict[str, DraftChanged]]] = {}
        self._draft_timer: Timer | None = None

    def read_saved(self, read: Callable[[ProgressStore], T], default: T) -> T:
        """What the learner saved before, for a widget to show; `default` (and a
        notification) when the store cannot be read."""
        ctx = tutor_context(self)
        try:
            found = read(ctx.store)
        except store_errors(ctx.store) as exc:
            if "read" not in ctx.failing_saves:  # once, not once per question
                self.notify(ctx.t("store.unread", why=why_not_saved(ctx, exc)), severity="error")
            ctx.failing_saves.add("read")
            return default
        ctx.failing_saves.discard("read")
        return found

    def saved_summary(self, lesson_id: str) -> SavedSummary:
        """The summary form's saved state, for the editor to start from."""
        from tutor.content.grade import SUMMARY  # only pages with the form
        from tutor.tui.widgets.summary import SavedSummary

        def read(store: ProgressStore) -> SavedSummary:
            return SavedSummary(
                store.summary(lesson_id),
                store.summary_submitted(lesson_id),
                store.guest,
                tuple(store.self_check(lesson_id, SUMMARY)),
            )

        return self.read_saved(read, SavedSummary(guest=tutor_context(self).store.guest))

    def saved_teacher_marks(self, lesson_id: str) -> dict[str, TeacherMarks]:
        """The teacher's marks on the learner's answers in this lesson, by item."""
        return self.read_saved(lambda store: store.teacher_marks(lesson_id), {})

    def saved_answer(self, lesson_id: str, question_id: str) -> SavedAnswer:
        """A quiz question's saved state: its last answer, how many, the self-check."""
        from tutor.tui.widgets.quiz import SavedAnswer  # only quiz pages

        def read(store: ProgressStore) -> SavedAnswer:
            attempts = store.attempts(lesson_id, question_id)
            last = attempts[-1].answer if attempts else None
            ticked = tuple(store.self_check(lesson_id, question_id))
            draft = store.drafts(lesson_id).get(question_id)
            return SavedAnswer(last, len(attempts), ticked, draft)

        return self.read_saved(read, SavedAnswer())

    def save(self, what: str, write: Callable[[ProgressStore], object]) -> bool:
        """Run `write` on the store; False (and a notification naming `what` the learner
        made: store.unsaved.<what>) when it could not. While saves of one kind keep failing,
        on this page or the next, the notification is not repeated: the widget's own line
        says each is not saved."""
        ctx = tutor_context(self)
        try:
            write(ctx.store)
        except store_errors(ctx.store) as exc:
            if what not in ctx.failing_saves:  # told once, not at every keystroke or page
                said = ctx.t(f"store.unsaved.{what}", why=why_not_saved(ctx, exc))
                self.notify(said, severity="error", timeout=10)
            ctx.failing_saves.add(what)
            return False
        ctx.failing_saves.discard(what)
        return True

    @staticmethod
    def _tell(message: Saving, ok: bool) -> None:
        if message.widget.is_attached:
            cast("SavingWidget", message.widget).saved(message, ok)

    def on_question_answered(self, message: QuestionAnswered) -> None:
        message.stop()
        ok = self.save(
            "answer",
            lambda store: store.record_attempt(
                message.lesson_id, message.question_id, message.answer, message.correct
            ),
        )
        pending = self._drafts.get(message.widget)
        if ok and pending and getattr(pending[0], "answer", None) == message.answer:
            del self._drafts[message.widget]  # the attempt replaced it (a newer one waits)
        self._tell(message, ok)

    def on_self_check_marked(self, message: SelfCheckMarked) -> None:
        message.stop()
        ok = self.save(
            "self_check",
            lambda store: store.save_self_check(message.lesson_id, message.item, message.claims),
        )
        self._tell(message, ok)

    def on_summary_draft_changed(self, message: SummaryDraftChanged) -> None:
        self._draft_changed(message)

    def on_quiz_draft_changed(self, message: QuizDraftChanged) -> None:
        self._draft_changed(message)

    def _draft_changed(self, message: DraftChanged) -> None:
        message.stop()
        _last, pending = self._drafts.get(message.widget, (message, {}))
        self._drafts[message.widget] = (message, {**pending, message.key: message})
        if self._draft_timer is None:
            self._draft_timer = self.set_timer(SAVE_DELAY, self.save_drafts)

    def save_drafts(self) -> None:
        """Every changed draft now, each in its own short transaction; what could not be
        saved is tried again with the next change or on leaving the page."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        drafts, self._drafts = self._drafts, {}
        for last, pending in drafts.values():
            what = "draft" if isinstance(last, QuizDraftChanged) else "summary"
            ok = self.save(what, lambda store, p=pending: _write(store, p))
            if not ok:
                self._drafts[last.widget] = (last, pending)
            self._tell(last, ok)

    def on_summary_submitted(self, message: SummarySubmitted) -> None:
        message.stop()
        ok = self.save(
            "summary", lambda store: store.submit_summary(message.lesson_id, message.sections)
        )
        if ok:  # the submission holds every section; else the drafts are tried again
            self._drafts.pop(message.widget, None)
        self._tell(message, ok)

    def on_screen_suspend(self) -> None:
        """Leaving the page (or quitting) must not drop the last keystrokes."""
        self.save_drafts()

    def on_unmount(self) -> None:
        self.save_drafts()


def _write(store: ProgressStore, drafts: dict[str, DraftChanged]) -> None:
    for _key, draft in sorted(drafts.items()):
        if isinstance(draft, QuizDraftChanged):
            store.save_draft(draft.lesson_id, draft.question_id, draft.answer)
        elif isinstance(draft, SummaryDraftChanged):
            store.save_summary(draft.lesson_id, draft.section, draft.text)
